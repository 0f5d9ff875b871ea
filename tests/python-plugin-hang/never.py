# A method that never finishes the requests of `never.hang` (comma-separated
# ids) and ignores cancellation: the forgotten return_value() the Python
# guide warns of.  The others are answered at once.
import gi
gi.require_version("Anot", "1.0")
from gi.repository import Anot, Gio, GObject

_forgotten = []


class Never(GObject.Object, Anot.Method):
    __gtype_name__ = "FileNeverMethod"

    def do_rank_async(self, request, candidates, k, context, cancellable, callback, *user_data):
        task = Gio.Task.new(self, cancellable, callback)
        if request.get_id() in (context.get_option("never.hang") or "").split(","):
            _forgotten.append(task)
            return
        task.return_value(Anot.Ranking.new_from_indices(range(len(candidates))))

    def do_rank_finish(self, result):
        return result.propagate_value().value


Anot.Registry.get_default().register(Anot.METHOD_EXTENSION_POINT_NAME, Never, "file-never",
                                     "Never finishes some requests (a Python method file)")

# The Python guide's asynchronous listwise method, as a method file: it
# awaits complete_async(), so many requests wait for the LLM at once.
import gi
gi.require_version("Anot", "1.0")
from gi.repository import Anot, Gio, GLib, GObject


class Listwise(GObject.Object, Anot.Method):
    """Shows the model the numbered candidates and reads a ranking back."""

    __gtype_name__ = "FileListwiseMethod"

    def do_rank_async(self, request, candidates, k, context, cancellable, callback, *user_data):
        task = Gio.Task.new(self, cancellable, callback)
        prompt = "\n".join([f"Request: {request.get_text()}", "Candidates:"] +
                           [f"[{i + 1}] {c.get_name()}: {', '.join(c.get_categories())}"
                            for i, c in enumerate(candidates)] +
                           [f"Answer with the {k} best candidate numbers, best first."])

        def on_answer(ctx, result):
            try:
                completion = ctx.complete_finish(result)
                parse = Anot.parse_ranking(completion.get_text(), len(candidates), candidates, 0)
                task.return_value(parse.to_ranking())
            except GLib.Error as error:
                task.return_error(error)

        context.complete_async(Anot.DEFAULT_ROLE, "You rank cafes for a customer.", prompt,
                               cancellable, on_answer)

    def do_rank_finish(self, result):
        return result.propagate_value().value


Anot.Registry.get_default().register(Anot.METHOD_EXTENSION_POINT_NAME, Listwise, "file-listwise",
                                     "Listwise ranking by an LLM (a Python method file)")

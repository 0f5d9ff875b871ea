# A method file written as docs/writing-a-method-in-python.md shows, for
# tests/python/test_python_plugins.py: anot-run loads it with --plugin or
# from a directory of ANOT_PLUGIN_PATH.
import random

import gi
gi.require_version("Anot", "1.0")
from gi.repository import Anot


@Anot.register_method("file-most-reviewed", "Ranks by number of reviews (a Python method file)")
class MostReviewed(Anot.PyMethod):
    def rank(self, request, candidates, k, context):
        return sorted(range(len(candidates)), key=lambda i: -candidates[i].get_n_reviews())


@Anot.register_method("file-noisy-stars", "Star rating plus seeded noise (a Python method file)")
class NoisyStars(Anot.PyMethod):
    def rank(self, request, candidates, k, context):
        settings = Anot.MethodSettings.new("file-noisy-stars")
        settings.load_for_context(context)
        _, noise = settings.get_double(context, "noise", 0.5, 0, 10)
        rng = random.Random(context.get_seed())
        scores = [item.get_stars() + rng.uniform(0, noise) for item in candidates]
        return sorted(((i, s) for i, s in enumerate(scores)), key=lambda p: -p[1])

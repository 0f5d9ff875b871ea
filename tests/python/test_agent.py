"""The agent plumbing and the LATS search tree as a notebook uses them."""
import json
import math

from gi.repository import Anot, Json


def test_search_tree_from_python():
    tree = Anot.SearchTree.new("find a quiet cafe")
    a = tree.add_child(Anot.SEARCH_TREE_ROOT, "who is quiet?", 'check("x")', "{}")
    b = tree.add_child(Anot.SEARCH_TREE_ROOT, None, 'keys("items")', "[]")
    assert math.isinf(tree.uct(a, math.sqrt(2)))
    tree.backpropagate(a, 0.8, Anot.BackpropMode.MEAN)
    tree.backpropagate(b, 0.2, Anot.BackpropMode.MEAN)
    assert tree.get_value(Anot.SEARCH_TREE_ROOT) == 0.5
    assert tree.get_visits(Anot.SEARCH_TREE_ROOT) == 2
    expected = 0.8 + math.sqrt(2) * math.sqrt(math.log(2) / 1)
    assert abs(tree.uct(a, math.sqrt(2)) - expected) < 1e-12
    assert tree.select(math.sqrt(2), 5) == a
    tree.set_ranking(a, [2, 0])
    assert list(tree.get_ranking(a)) == [2, 0]
    assert list(tree.get_path(a)) == [0, a]
    assert tree.get_best_node(True) == a
    assert Anot.search_stop_to_string(Anot.SearchStop.CALL_BUDGET) == "call_budget"

    # The dump a notebook draws.
    dump = json.loads(Json.to_string(tree.to_json(), False))
    assert dump["n_nodes"] == 3
    assert [n["parent"] for n in dump["nodes"]] == [None, 0, 0]
    assert dump["nodes"][a]["ranking"] == [3, 1]
    assert tree.props.n_nodes == 3 and tree.props.height == 1


def test_toolbox_from_python(demo):
    items = [demo.get_item(i) for i in range(5)]
    toolbox = Anot.AgentToolbox.new(items)
    assert toolbox.list_actions()[-1] == "finish"

    action, thought = Anot.AgentAction.parse_reply('Thought: count\nAction: count("items")')
    assert action.get_tool() == "count" and thought == "count"
    observation, answer = toolbox.execute(action)
    assert observation == "5" and answer is None

    observation, _ = toolbox.execute(Anot.AgentAction.parse('check("name")'))
    values = json.loads(observation)["values"]
    assert values == {str(i + 1): item.get_name() for i, item in enumerate(items)}

    observation, answer = toolbox.execute(Anot.AgentAction.parse('finish("2, 5")'))
    assert observation == "Final answer: 2, 5"
    assert answer.get_ok() and list(answer.get_indices()) == [1, 4]


def test_method_settings_from_python():
    settings = Anot.MethodSettings.new("lats")
    settings.set_environment(["ANOT_LATS_BEAM_WIDTH=7"])
    ok, value = settings.get_uint(None, "beam_width", 3, 1, 32)
    assert ok and value == 7
    ok, value = settings.get_double(None, "exploration_weight", math.sqrt(2), 0, 10)
    assert ok and value == math.sqrt(2)
    sources = json.loads(Json.to_string(settings.to_json(), False))
    assert sources["beam_width"]["source"] == "environment ANOT_LATS_BEAM_WIDTH"
    assert sources["exploration_weight"]["source"] == "default"

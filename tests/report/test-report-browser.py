#!/usr/bin/python3
"""The HTML report of `anot-run report`, opened in a real headless Chromium.

Runs bm25 (clean and typo_20), random (two runs) and cot (against the fake
LLM server, so its traces have real LLM calls) on the demo benchmark at
N = 10 and 20, writes the report, opens it from a file:// URL through
chromedriver and checks, against values computed here from the results
files: the plots' points, filtering and sorting the request table, opening
a request to its methods' traces, and that the page made no network request.

TAP output; skipped without chromium and chromedriver.
ANOT_REPORT_SCREENSHOT=DIR saves screenshots of the page there (docs/ keeps
report-plots.png, report-failures.png and report-request.png from it).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# Debian's packages (chromium, chromium-driver); ANOT_CHROMIUM and
# ANOT_CHROMEDRIVER name others.
CHROMIUM = os.environ.get("ANOT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = os.environ.get("ANOT_CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"

checks = []


def check(ok, what):
    checks.append((bool(ok), what))
    print("%s %d - %s" % ("ok" if ok else "not ok", len(checks), what), flush=True)


def run(args, **kw):
    result = subprocess.run(args, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(args), result.returncode, result.stderr))
    return result.stdout


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def lwt_trace(r):
    """ANoT's trace (docs/anot-method.md): the LWT script and step results."""
    return {"request_id": r,
            "phase2": {"expanded_lwt": ['(0)=LLM("Is item 1 right? {(context)}[1]")',
                                        '(1)=LLM("Is item 2 right? {(context)}[2]")',
                                        '(final)=LLM("Scores: {(0)}, {1}. Return the best index.")']},
            "phase3": {"step_results": {"0": {"output": "7", "latency_ms": 12.0},
                                        "1": {"output": "2", "latency_ms": 9.0},
                                        "final": {"output": "best: " + r, "latency_ms": 30.0}}}}


def tree_trace(r):
    """LATS's search tree (anot_search_tree_to_json) and a Weaver-like SQL step."""
    return {"tree": {"n_nodes": 3, "height": 1,
                     "nodes": [{"id": 0, "parent": None, "visits": 2, "value": 0.5, "children": [1, 2]},
                               {"id": 1, "parent": 0, "action": "check(3)", "children": []},
                               {"id": 2, "parent": 0, "action": "finish(" + r + ")", "children": []}]},
            "steps": [{"phase": "sql", "sql": "SELECT name FROM items WHERE wifi = 'free'",
                       "columns": ["name"], "rows": [["Heron Hall"], ["Lantern & Ladle"]]}]}


def failure_counts(lines, kinds):
    """Recount of compare --by-condition from results rows: measure -> count."""
    counts = dict.fromkeys(["misses", "near_misses", "no_failed_condition"] + kinds, 0)
    for l in lines:
        if l.get("error") or l.get("top1_conditions") is None or l["gold_rank"] == 1:
            continue
        failed = l["top1_failed"]
        counts["misses"] += 1
        counts["near_misses"] += len(failed) == 1
        counts["no_failed_condition"] += not failed
        for kind in set(l["condition_kinds"][k] for k in failed):
            counts[kind] += 1
    return counts


def write_synthetic_run(source, target, method, make_trace):
    """A run of `method` with cot's rows and a trace per request."""
    os.makedirs(target)
    with open(os.path.join(source, "config.json")) as f:
        config = json.load(f)
    config["method"] = config["anot"]["method"] = method
    config["run_name"] = config["anot"]["name"] = method + "_demo"
    with open(os.path.join(target, "config.json"), "w") as f:
        json.dump(config, f)
    shutil.copy(os.path.join(source, "results_10.jsonl"), target)
    with open(os.path.join(target, "trace_10.jsonl"), "w") as f:
        for row in read_jsonl(os.path.join(source, "results_10.jsonl")):
            f.write(json.dumps({"request_id": row["request_id"], "n_candidates": 10, "run": 1,
                                "method": method, "trace": make_trace(row["request_id"])}) + "\n")


def main():
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        # A TAP plan of no test with SKIP: meson reports the test skipped.
        print("1..0 # SKIP chromium or chromedriver not installed")
        return 0
    from webdriver import Browser

    anot_run = os.environ["ANOT_RUN"]
    fake_llm = os.environ["ANOT_FAKE_LLM"]
    work = tempfile.mkdtemp(prefix="anot-report-test-")
    fake = None
    started = time.monotonic()
    try:
        out = os.path.join(work, "results")
        rules = os.path.join(work, "rules.json")
        with open(rules, "w") as f:
            # The answer quotes the request, so each request's trace differs.
            json.dump({"seed": 1, "rules": [{"match": "User request: (\\S+ \\S+ \\S+ \\S+ \\S+)",
                                             "reply": "Weighing \u201c\\1\u201d.\nANSWER: 3, 1, 2, 5, 4"}]}, f)
        fake = subprocess.Popen([fake_llm, "--rules", rules], stdout=subprocess.PIPE, text=True)
        url = fake.stdout.readline().strip()

        common = ["--scaling", "-o", out]
        run([anot_run, "--method", "bm25", "--attack", "clean,typo_20"] + common)
        run([anot_run, "--method", "random", "--runs", "2"] + common)
        # ANOT_DEBUG=3 logs every prompt: the report shows them with the calls.
        env = dict(os.environ, OPENAI_API_KEY="test", ANOT_DEBUG="3")
        run([anot_run, "--method", "cot", "--backend", "openai", "--base-url", url + "/v1",
             "--model", "fake"] + common, env=env)
        report = os.path.join(work, "report.html")
        printed = run([anot_run, "report", out, "-o", report, "--baseline", "bm25",
                       "--title", "Demo benchmark: bm25, random and cot"])
        check("Report: " in printed, "anot-run report writes the page")

        # What the page must show, from the files the runs wrote.
        rows = {}
        for method, attack, n_runs in (("bm25", "clean", 1), ("bm25", "typo_20", 1),
                                       ("random", "clean", 2), ("cot", "clean", 1)):
            for r in range(1, n_runs + 1):
                for n in (10, 20):
                    d = os.path.join(out, "%s_demo" % method, attack, "run_%d" % r)
                    rows[(method, attack, r, n)] = read_jsonl(os.path.join(d, "results_%d.jsonl" % n))
        expected_hits1 = {}
        for (method, attack, r, n), lines in rows.items():
            if attack == "clean":
                expected_hits1.setdefault((method, n), []).extend(l["gold_rank"] == 1 for l in lines)
        cot_misses = sum(l["gold_rank"] == 0 for (m, a, r, n), ls in rows.items() if m == "cot" for l in ls)
        total_rows = sum(len(ls) for ls in rows.values())

        with Browser(CHROMIUM, CHROMEDRIVER) as b:
            # The log must see a network request when there is one (the
            # control), before it is trusted to show there is none.
            sink = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "0"],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    cwd=work)
            try:
                port = sink.stdout.readline().split("port ")[1].split()[0]
                b.get("data:text/html,<img src='http://127.0.0.1:%s/pixel.png'>" % port)
                time.sleep(0.3)
                seen = [e["params"]["request"]["url"] for e in b.performance_log()
                        if e["method"] == "Network.requestWillBeSent"]
                check(any(u.startswith("http://127.0.0.1:%s/" % port) for u in seen),
                      "control: the performance log shows a page's HTTP request")
            finally:
                sink.terminate()
                sink.wait()

            b.get("about:blank")
            b.performance_log()
            file_url = "file://" + report
            b.get(file_url)

            points = b.run("""return Array.from(document.querySelectorAll(
                'svg.metric-plot[data-metric=hits_at_1] circle.pt')).map(
                c => [c.dataset.method, +c.dataset.n, c.dataset.value]);""")
            check(len(points) == len(expected_hits1),
                  "Hits@1 plot has %d points (one per method and N), expected %d"
                  % (len(points), len(expected_hits1)))
            wrong = [(m, n, v) for m, n, v in points
                     if "%.3f" % (sum(expected_hits1[(m, n)]) / len(expected_hits1[(m, n)])) != v]
            check(points and not wrong, "each point is the method's Hits@1 at that N (wrong: %s)" % wrong)
            bands = b.run("return document.querySelectorAll('svg.metric-plot polygon.band').length")
            check(bands == 3 * 3, "interval bands: one per method in each of the 3 plots (%d)" % bands)
            drops = b.run("""return Array.from(document.querySelectorAll('svg.drop-plot rect.drop')).map(
                r => [r.dataset.method, r.dataset.attack, +r.dataset.n, +r.dataset.value]);""")
            expected_drop = {}
            for n in (10, 20):
                clean = sum(l["gold_rank"] == 1 for l in rows[("bm25", "clean", 1, n)]) / 30
                attacked = sum(l["gold_rank"] == 1 for l in rows[("bm25", "typo_20", 1, n)]) / 30
                expected_drop[n] = attacked - clean
            check(len(drops) == 2 and all(m == "bm25" and a == "typo_20" and abs(v - expected_drop[n]) < 5e-4
                                          for m, a, n, v in drops),
                  "robustness plot: bm25 under typo_20 at N=10 and 20 (%s)" % drops)
            calls = b.run("""return document.querySelector(
                'svg.usage-plot rect.usage[data-what=calls][data-method=cot]').dataset.value""")
            check(float(calls) == 1.0, "cost plot: cot makes 1 call per request (%s)" % calls)

            count = b.run("return document.getElementById('row-count').textContent")
            check(count == "%d rows" % total_rows, "the table starts with every row (%s)" % count)
            b.click("#f-method option[value=cot]")
            b.click("#f-outcome option[value=miss]")
            count = b.run("return document.getElementById('row-count').textContent")
            check(count == "%d rows" % cot_misses,
                  "filtered to cot's misses: %s, expected %d" % (count, cot_misses))
            shown = b.run("""return Array.from(document.querySelectorAll('#rows tbody tr')).map(
                tr => [tr.dataset.method, tr.children[7].textContent]);""")
            check(shown and all(m == "cot" and o == "miss" for m, o in shown),
                  "every row shown is a miss of cot")

            b.click("#f-outcome option[value='']")
            b.click("#f-method option[value='']")
            b.click("#sort-rank")
            ranks = b.run("""return Array.from(document.querySelectorAll('#rows tbody tr')).map(
                tr => tr.children[6].textContent);""")
            numeric = [int(r) for r in ranks if r.isdigit()]
            check(numeric and numeric == sorted(numeric) and ranks[0] == "1",
                  "sorted by gold rank, best first")

            # Open R07 at N=20 for cot: the trace must be R07's own.
            b.click("#sort-rank")
            b.click("#sort-rank")
            b.click("#f-method option[value=cot]")
            b.click("#f-n option[value='20']")
            b.type("#f-search", "R07")
            b.click("#rows tbody tr")
            request = b.run("return document.getElementById('detail').dataset.request")
            check(request == "R07", "the row opens its request (%s)" % request)
            methods = b.run("""return Array.from(document.querySelectorAll('#detail .trace')).map(
                t => t.dataset.method);""")
            check(sorted(methods) == ["bm25", "cot", "random"],
                  "the request's methods side by side (%s)" % methods)
            b.click("#detail .trace[data-method=cot] details.call > summary")
            output = b.run("""return document.querySelector(
                '#detail .trace[data-method=cot] details.call pre.output').textContent""")
            traces = read_jsonl(os.path.join(out, "cot_demo", "clean", "run_1", "trace_20.jsonl"))
            want = [t for t in traces if t["request_id"] == "R07"][0]["trace"]["calls"][0]["output"]
            check(output == want and "Weighing" in output,
                  "the LLM call shows R07's output at N=20 (%r)" % output[:60])
            text = b.run("return document.querySelector('#detail .request-text').textContent")
            requests = read_jsonl(os.path.join(os.environ["ANOT_DATA_DIR"], "demo", "requests.jsonl"))
            r07 = [r for r in requests if r["id"] == "R07"][0]["text"]
            check(text == r07, "the request's text is shown")
            prompt = b.run("""return document.querySelector(
                '#detail .trace[data-method=cot] details.call pre.prompt').textContent""")
            check(("User request: " + r07) in prompt
                  and "top-5 of the 20 restaurants" in prompt,
                  "the call's prompt (from debug.log) is R07's at N=20")
            check("[cut from the report; the full prompt" in prompt,
                  "a prompt longer than --max-text is cut, saying where the rest is")

            # Why each method missed: the panel's bars against a recount from
            # the rows, and the request view's verdicts against the rows.
            bars = b.run("""return Array.from(document.querySelectorAll('svg.failure-plot rect.failure')).map(
                r => [r.dataset.method, r.dataset.attack, +r.dataset.n, r.dataset.measure, +r.dataset.count]);""")
            kinds = sorted({k for ls in rows.values() for l in ls for k in (l.get("condition_kinds") or {}).values()})
            expected_bars = {}
            for (method, attack, r, n), lines in rows.items():
                if attack != "clean":
                    continue
                for measure, c in failure_counts(lines, kinds).items():
                    key = (method, n, measure)
                    expected_bars[key] = expected_bars.get(key, 0) + c
            got_bars = {(m, n, q): c for m, a, n, q, c in bars if a == "clean"}
            check(len(bars) == len(got_bars) == len(expected_bars) and got_bars == expected_bars,
                  "failure panel: a bar per method, N and measure, counts as recounted from the rows "
                  "(%d bars, %d expected; differing: %s)"
                  % (len(bars), len(expected_bars),
                     sorted(k for k in expected_bars if got_bars.get(k) != expected_bars[k])[:5]))
            check(any(c > 0 for (m, n, q), c in expected_bars.items() if q not in ("misses",)),
                  "the panel has failures of some kind to show")
            shown_conditions = b.run("""return Array.from(document.querySelectorAll('#detail .trace')).map(
                t => [t.dataset.method, Array.from(t.querySelectorAll('details.conditions tbody tr')).map(
                  tr => [tr.dataset.condition, tr.children[2].dataset.top1 === undefined ? null : +tr.children[2].dataset.top1,
                         tr.children[3].dataset.gold === undefined ? null : +tr.children[3].dataset.gold])]);""")
            wrong_conditions = []
            for method, table in shown_conditions:
                row = [l for l in rows[(method, "clean", 1, 20)] if l["request_id"] == "R07"][0]
                want = [[k, row["top1_conditions"].get(k), v] for k, v in row["gold_conditions"].items()]
                if table != want:
                    wrong_conditions.append((method, table, want))
            check(len(shown_conditions) == 3 and not wrong_conditions,
                  "R07's view: each method's first item's verdicts next to the gold's, as in the rows (%s)"
                  % wrong_conditions)
            summaries = b.run("""return Array.from(document.querySelectorAll('#detail details.conditions > summary')).map(
                s => s.textContent);""")
            firsts = [[l for l in rows[(m, "clean", 1, 20)] if l["request_id"] == "R07"][0] for m, _ in shown_conditions]
            check(all((f["gold_rank"] == 1) == (s == "first: the gold") and (f["gold_rank"] == 1 or f["top1_item"] in s)
                      for f, s in zip(firsts, summaries)),
                  "each method's first item is named, or said to be the gold (%s)" % summaries)

            if os.environ.get("ANOT_REPORT_SCREENSHOT"):
                shots = os.environ["ANOT_REPORT_SCREENSHOT"]
                b.run("window.scrollTo(0, 0)")
                b.screenshot(os.path.join(shots, "report-plots.png"))
                # Below the sticky navigation bar, its heading in view.
                b.run("""Array.from(document.querySelectorAll('h3')).find(
                    h => h.textContent.startsWith('Why the first item')).scrollIntoView();
                    window.scrollBy(0, -48)""")
                b.screenshot(os.path.join(shots, "report-failures.png"))
                b.run("document.getElementById('detail').scrollIntoView(); window.scrollBy(0, -48)")
                b.screenshot(os.path.join(shots, "report-request.png"))

            requests_made = [e["params"]["request"]["url"] for e in b.performance_log()
                             if e["method"] == "Network.requestWillBeSent"]
            check(requests_made and all(u == file_url for u in requests_made),
                  "the page fetched nothing but itself (%s)" % sorted(set(requests_made)))

            # ANoT's LWT script as a DAG, from a trace in the documented
            # format (docs/anot-method.md) next to cot's rows.
            lwt_root = os.path.join(work, "lwt")
            cot_run = os.path.join(out, "cot_demo", "clean", "run_1")
            write_synthetic_run(cot_run, os.path.join(lwt_root, "anot_demo", "clean", "run_1"), "anot", lwt_trace)
            write_synthetic_run(cot_run, os.path.join(lwt_root, "lats_demo", "clean", "run_1"), "lats", tree_trace)
            lwt_page = os.path.join(work, "lwt.html")
            run([anot_run, "report", lwt_root, "-o", lwt_page, "--resamples", "100"])
            b.get("file://" + lwt_page + "#request=R03&n=10&run=1&attack=clean")
            steps = b.run("""return Array.from(document.querySelectorAll(
                '#detail .trace[data-method=anot] details.lwt tbody tr')).map(
                tr => Array.from(tr.children).map(td => td.textContent));""")
            check([s[:3] for s in steps] == [["(0)", "1", ""], ["(1)", "1", ""], ["(final)", "2", "(0) (1)"]],
                  "the LWT steps with their layers and the steps they read (%s)" % [s[:3] for s in steps])
            check(steps and steps[2][4] == "best: R03", "each step's result (%s)" % (steps[2][4] if steps else None))
            b.click("#detail .trace[data-method=lats] details.search-tree > summary")
            nodes = b.run("""return Array.from(document.querySelectorAll(
                '#detail .trace[data-method=lats] .tree li > details > summary')).map(s => s.textContent);""")
            check(len(nodes) == 3 and nodes[2].startswith("#2 · action finish(R03)"),
                  "LATS's search tree, node by node (%s)" % nodes)
            nested = b.run("""return document.querySelectorAll(
                '#detail .trace[data-method=lats] .tree ul ul li').length""")
            check(nested == 2, "children under their parent (%d)" % nested)
            b.click("#detail .trace[data-method=lats] details[data-key=steps] > summary")
            b.click("#detail .trace[data-method=lats] details[data-key=steps] details[data-key='0'] > summary")
            b.find("#detail .trace[data-method=lats] details.sql-result")   # waits for the branch
            sql = b.run("""return [document.querySelector('#detail .trace[data-method=lats] pre.sql').textContent,
                Array.from(document.querySelectorAll('#detail .trace[data-method=lats] details.sql-result td'))
                .map(td => td.textContent)]""")
            check(sql[0].startswith("SELECT name FROM items") and sql[1] == ["Heron Hall", "Lantern & Ladle"],
                  "SQL as code and its result as a table (%s)" % sql)

            # Request ids as people count them (R2 before R10), a long
            # method name left of the cost bars, uncut, and methods without
            # a trace: bm25's rows, once under a long name with ids that
            # lost their zero padding, once as they are.
            long_name = "a-method-whose-name-is-rather-long-for-the-cost-panels"
            plain_root = os.path.join(work, "plain")
            source = os.path.join(out, "bm25_demo", "clean", "run_1")

            def untraced_run(method, rename, page=None, keep=None):
                target = os.path.join(plain_root, page or method, method + "_demo", "clean", "run_1")
                os.makedirs(target)
                with open(os.path.join(source, "config.json")) as f:
                    config = json.load(f)
                config["method"] = config["anot"]["method"] = method
                config["run_name"] = config["anot"]["name"] = method + "_demo"
                with open(os.path.join(target, "config.json"), "w") as f:
                    json.dump(config, f)
                lines = read_jsonl(os.path.join(source, "results_10.jsonl"))
                for row in lines:
                    row["request_id"] = rename(row["request_id"])
                lines.sort(key=lambda row: row["request_id"])    # byte order, as anot-run writes them
                lines = lines[:keep]
                with open(os.path.join(target, "results_10.jsonl"), "w") as f:
                    f.writelines(json.dumps(row) + "\n" for row in lines)
                return lines

            unpadded = untraced_run(long_name, lambda rid: "R%d" % int(rid[1:]))
            untraced = untraced_run("untraced", lambda rid: rid)
            # An expensive method run on 5 of the 30 requests, beside it.
            untraced_run("expensive", lambda rid: rid, page="untraced", keep=5)
            plain_page = os.path.join(work, "plain.html")
            run([anot_run, "report", os.path.join(plain_root, long_name), "-o", plain_page,
                 "--resamples", "100"])
            b.get("file://" + plain_page)
            b.click("#f-method option[value='%s']" % long_name)
            ids = b.run("""return Array.from(document.querySelectorAll('#rows tbody tr')).map(
                tr => tr.children[0].textContent);""")
            check(ids == ["R%d" % i for i in range(1, 31)], "requests in natural order (%s)" % ids[:12])
            left = b.run("""return Array.from(document.querySelectorAll('svg.usage-plot text.tick')).filter(
                t => t.textContent === '%s').map(t => t.getBBox().x);""" % long_name)
            check(len(left) == 3 and min(left) >= 0, "a long method name is not cut in the cost panels (%s)" % left)
            b.click("#rows tbody tr")
            top = b.run("""return Array.from(document.querySelectorAll(
                '#detail .trace ol.top-items li')).map(li => li.textContent);""")
            check(top == ["#%d in the pool" % p for p in unpadded[0]["pred_indices"]],
                  "a request the benchmark does not hold: pool positions instead of names (%s)" % top)

            untraced_page = os.path.join(work, "untraced.html")
            run([anot_run, "report", os.path.join(plain_root, "untraced"), "-o", untraced_page,
                 "--resamples", "100"])
            b.get("file://" + untraced_page + "#request=R07&n=10&run=1&attack=clean")
            row = [r for r in untraced if r["request_id"] == "R07"][0]
            items = read_jsonl(os.path.join(os.environ["ANOT_DATA_DIR"], "demo", "restaurants.jsonl"))
            names = {i["business_id"]: i["name"] for i in items}
            top = b.run("""return Array.from(document.querySelectorAll(
                '#detail .trace[data-method=untraced] ol.top-items li')).map(li => li.textContent);""")
            gold_name = names[row["gold_restaurant"]]
            check(len(top) == len(row["pred_indices"]) and all(n in names.values() for n in top)
                  and all((name == gold_name) == (pos == row["gold_idx"] + 1)
                          for name, pos in zip(top, row["pred_indices"])),
                  "a method without a trace: its top items by name, the gold where it ranked it (%s)" % top)
            raw = b.run("""return document.querySelector(
                '#detail .trace[data-method=untraced] pre.raw-response').textContent""")
            check(raw == row["raw_response"], "and its raw answer (%r)" % raw)
            counts = b.run("""return Array.from(document.querySelectorAll('#comparison-tables table')[0]
                .querySelectorAll('tbody tr')).map(tr => [tr.children[0].textContent, tr.children[2].textContent]);""")
            check(sorted(counts) == [["expensive", "5"], ["untraced", "30"]],
                  "runs over different requests: each method's table over its own (%s)" % counts)
            note = b.run("return Array.from(document.querySelectorAll('p.unpaired')).map(p => p.textContent)")
            check(note == ["untraced against expensive at N=10: paired on the 5 (request, run) cells both ran; "
                           "25 only untraced ran, 0 only expensive."],
                  "the pairing over the requests both ran, the count stated (%s)" % note)
    finally:
        if fake is not None:
            fake.terminate()
            fake.wait()
        shutil.rmtree(work, ignore_errors=True)

    print("# %.1f s" % (time.monotonic() - started))
    print("1..%d" % len(checks))
    return 0 if all(ok for ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())

/* The script of the report written by AnotReportWriter (inlined).
 *
 * Everything it shows comes from the JSON in #anot-data and, for an opened
 * request, from the trace elements #tr-<row>, parsed only then.  Text from
 * the results is only ever set as textContent, never as HTML.
 */
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("anot-data").textContent);
  var PAGE = 100;
  var col = {};
  data.columns.forEach(function (name, i) { col[name] = i; });

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        if (attrs[key] === null || attrs[key] === undefined) return;
        if (key === "text") node.textContent = attrs[key];
        else if (key === "class") node.className = attrs[key];
        else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), attrs[key]);
        else node.setAttribute(key, attrs[key]);
      });
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function fmt(x, digits) { return x === null || x === undefined ? "–" : Number(x).toFixed(digits === undefined ? 3 : digits); }
  // A cost is null when a call's model had no price.
  function money(x, sign) { return x === null || x === undefined ? "unknown price" : (sign ? "$" : "") + Number(x).toFixed(4); }
  function signed(x) { return (x >= 0 ? "+" : "") + fmt(x); }
  function interval(e, sign) {
    if (!e) return "–";
    var f = sign ? signed : fmt;
    return f(sign ? e.diff : e.mean) + " [" + f(e.lower) + ", " + f(e.upper) + "]";
  }
  function pvalue(p) { return p < 0.001 ? "<0.001" : fmt(p); }
  /* Ids in the order people count them: R2 before R10 before R100. */
  function natural(a, b) { return String(a).localeCompare(String(b), "en", { numeric: true }); }

  /* ---------------------------------------------------------------- rows */

  var rows = data.rows.map(function (r, index) {
    var run = data.runs[r[col.run_index]];
    var rank = r[col.gold_rank];
    var outcome = r[col.error] !== null ? "error" : rank === 1 ? "hit" : rank > 0 ? "top-k" : "miss";
    return {
      index: index, runIndex: r[col.run_index], method: run.method, attack: run.attack, run: run.run, n: r[col.n],
      request: r[col.request_id], group: r[col.group] || "", rank: rank, outcome: outcome,
      calls: r[col.calls], tokens: r[col.tokens], cost: r[col.cost_usd], latency: r[col.latency_ms],
      error: r[col.error], trace: r[col.trace], answer: r[col.answer], runInfo: run, k: run.k,
      top1: col.top1_item === undefined ? null : r[col.top1_item],
      top1Conditions: col.top1_conditions === undefined ? null : r[col.top1_conditions],
      top1Failed: col.top1_failed === undefined ? null : r[col.top1_failed],
      goldConditions: col.gold_conditions === undefined ? null : r[col.gold_conditions],
      conditionKinds: col.condition_kinds === undefined ? null : r[col.condition_kinds]
    };
  });
  /* Results files list requests in byte order (R1, R10, R100, R11), as
   * the original framework wrote them; the page counts. */
  rows.sort(function (a, b) {
    return a.runIndex - b.runIndex || a.n - b.n || natural(a.request, b.request) || a.index - b.index;
  });

  /* ------------------------------------------------------ comparison */

  function table(headers, body, numeric) {
    var head = el("tr", null, headers.map(function (h, i) {
      return el("th", { text: h, class: numeric(i) ? "num" : "" });
    }));
    return el("table", null, [el("thead", null, [head]), el("tbody", null, body.map(function (cells) {
      return el("tr", null, cells.map(function (c, i) { return el("td", { text: c, class: numeric(i) ? "num" : "" }); }));
    }))]);
  }

  /* Pairs over a subset of the requests (one side ran fewer) say so. */
  function unpairedNote(box, pairs, a, b) {
    pairs.forEach(function (x) {
      var u = x.unpaired || {};
      if (!u[a] && !u[b]) return;
      var left = a === "method" ? x.method : x.attack, right = b === "baseline" ? x.baseline : x.clean;
      box.appendChild(el("p", { class: "note unpaired", text: x.method + (a === "method" ? "" : " " + x.attack) +
        " against " + right + " at N=" + x.n_candidates + ": paired on the " + x.pairs +
        " (request, run) cells both ran; " + u[a] + " only " + left + " ran, " + u[b] + " only " + right + "." }));
    });
  }

  function renderComparison() {
    var c = data.comparison, box = document.getElementById("comparison-tables");
    var level = Math.round(c.confidence * 100);
    var several = c.cells.some(function (x) { return x.attack !== "clean"; });
    box.textContent = "";
    box.appendChild(el("p", { class: "caption", text: "Hits@K and MRR with " + level + "% intervals (percentile bootstrap over requests, runs pooled per request, " + c.resamples + " resamples, seed " + c.seed + ")." }));
    /* Unscored requests (the infrastructure failed them) and prompts
     * shrunk to the context window get columns when a cell has any. */
    var unscored = c.cells.some(function (x) { return x.unscored > 0; });
    var shrunk = c.cells.some(function (x) { return x.shrunk > 0; });
    var pct = function (v) { return Math.round(v * 100) + "%"; };
    box.appendChild(table(
      ["method"].concat(several ? ["attack"] : []).concat(["N", "requests"]).concat(unscored ? ["unscored"] : [])
        .concat(["runs", "Hits@1", "Hits@3", "Hits@5", "MRR"]).concat(shrunk ? ["shrunk", "reviews dropped"] : []),
      c.cells.map(function (x) {
        return [x.method].concat(several ? [x.attack] : []).concat([String(x.n_candidates), String(x.requests)])
          .concat(unscored ? [String(x.unscored)] : []).concat([String(x.runs),
          interval(x.hits_at_1), interval(x.hits_at_3), interval(x.hits_at_5), interval(x.mrr)])
          .concat(shrunk ? [pct(x.shrunk), pct(x.reviews_dropped)] : []);
      }),
      function (i) { return i >= (several ? 2 : 1); }));
    if (c.paired.length) {
      box.appendChild(el("p", { class: "caption", text: "Against " + c.baseline + " on the same (request, N, run) cells" + (unscored ? ", both scored (left out: unscored on a side)" : "") + ": the difference with its " + level + "% interval; wins/losses: cells only the method / only the baseline ranked first; p: exact McNemar test of Hits@1." }));
      box.appendChild(table(
        ["method", "baseline", "attack", "N", "pairs"].concat(unscored ? ["left out"] : []).concat(["Hits@1", "ΔHits@1", "ΔMRR", "wins/losses", "p"]),
        c.paired.map(function (x) {
          return [x.method, x.baseline, x.attack, String(x.n_candidates), String(x.pairs)].concat(unscored ? [String(x.excluded)] : []).concat([
            fmt(x.hits_at_1.baseline) + " → " + fmt(x.hits_at_1.method), interval(x.hits_at_1, true),
            interval(x.mrr, true), x.mcnemar.method_only + "/" + x.mcnemar.baseline_only, pvalue(x.mcnemar.p_value)]);
        }),
        function (i) { return i >= 3; }));
      unpairedNote(box, c.paired, "method", "baseline");
    }
    if (c.robustness.length) {
      box.appendChild(el("p", { class: "caption", text: "Attacked against clean, paired the same way." }));
      box.appendChild(table(
        ["method", "attack", "N", "pairs"].concat(unscored ? ["left out"] : []).concat(["Hits@1 clean → attacked", "ΔHits@1", "ΔMRR", "gained/lost", "p"]),
        c.robustness.map(function (x) {
          return [x.method, x.attack, String(x.n_candidates), String(x.pairs)].concat(unscored ? [String(x.excluded)] : []).concat([
            fmt(x.hits_at_1.clean) + " → " + fmt(x.hits_at_1.attacked), interval(x.hits_at_1, true),
            interval(x.mrr, true), x.mcnemar.attacked_only + "/" + x.mcnemar.clean_only, pvalue(x.mcnemar.p_value)]);
        }),
        function (i) { return i >= 2; }));
      unpairedNote(box, c.robustness, "attacked", "clean");
    }
  }

  /* ---------------------------------------------------- request table */

  var state = { method: "", attack: "", n: "", run: "", group: "", outcome: "", search: "", sort: "request", page: 0 };

  function distinct(key) {
    var seen = {}, out = [];
    rows.forEach(function (r) { var v = String(r[key]); if (!seen[v]) { seen[v] = true; out.push(v); } });
    return out.sort(natural);
  }

  function select(id, label, key, values) {
    var s = el("select", { id: "f-" + id, onchange: function () { state[key] = s.value; state.page = 0; renderTable(); } },
      [el("option", { value: "", text: "all" })].concat(values.map(function (v) { return el("option", { value: v, text: v }); })));
    return el("label", null, [label, s]);
  }

  function renderFilters() {
    var box = document.getElementById("filters");
    var search = el("input", { id: "f-search", type: "search", placeholder: "R01", size: "8",
      oninput: function () { state.search = search.value.trim(); state.page = 0; renderTable(); } });
    box.appendChild(select("method", "method", "method", data.methods.slice()));
    box.appendChild(select("attack", "attack", "attack", distinct("attack")));
    box.appendChild(select("n", "N", "n", distinct("n")));
    box.appendChild(select("run", "run", "run", distinct("run")));
    box.appendChild(select("group", "group", "group", distinct("group")));
    box.appendChild(select("outcome", "outcome", "outcome", ["hit", "top-k", "miss", "error"]));
    box.appendChild(el("label", null, ["request", search]));
  }

  function filtered() {
    var out = rows.filter(function (r) {
      return (!state.method || r.method === state.method) && (!state.attack || r.attack === state.attack) &&
        (!state.n || String(r.n) === state.n) && (!state.run || String(r.run) === state.run) &&
        (!state.group || r.group === state.group) && (!state.outcome || r.outcome === state.outcome) &&
        (!state.search || r.request.toLowerCase().indexOf(state.search.toLowerCase()) >= 0);
    });
    if (state.sort !== "request") {
      var dir = state.sort === "rank-asc" ? 1 : -1;
      out.sort(function (a, b) {
        var x = a.rank || Infinity, y = b.rank || Infinity;
        return x === y ? 0 : (x < y ? -dir : dir);
      });
    }
    return out;
  }

  function renderTable() {
    var box = document.getElementById("request-table"), list = filtered();
    var pages = Math.max(1, Math.ceil(list.length / PAGE));
    state.page = Math.min(state.page, pages - 1);
    var rankHeader = el("th", { class: "num sortable", id: "sort-rank", title: "sort by gold rank",
      text: "gold rank" + (state.sort === "rank-asc" ? " ▲" : state.sort === "rank-desc" ? " ▼" : ""),
      onclick: function () {
        state.sort = state.sort === "rank-asc" ? "rank-desc" : state.sort === "rank-desc" ? "request" : "rank-asc";
        renderTable();
      } });
    var head = el("tr", null, [el("th", { text: "request" }), el("th", { text: "group" }), el("th", { text: "method" }),
      el("th", { text: "attack" }), el("th", { class: "num", text: "N" }), el("th", { class: "num", text: "run" }),
      rankHeader, el("th", { text: "outcome" }), el("th", { class: "num", text: "calls" }),
      el("th", { class: "num", text: "tokens" }), el("th", { class: "num", text: "cost $" })]);
    var body = el("tbody", null, list.slice(state.page * PAGE, (state.page + 1) * PAGE).map(function (r) {
      return el("tr", { "data-row": String(r.index), "data-method": r.method, "data-request": r.request,
        onclick: function () { openDetail(r); } }, [
        el("td", { text: r.request }), el("td", { text: r.group }), el("td", { text: r.method }),
        el("td", { text: r.attack }), el("td", { class: "num", text: String(r.n) }),
        el("td", { class: "num", text: String(r.run) }),
        el("td", { class: "num", text: r.rank ? String(r.rank) : "—" }),
        el("td", { class: "outcome-" + r.outcome, text: r.outcome }),
        el("td", { class: "num", text: String(r.calls) }), el("td", { class: "num", text: String(r.tokens) }),
        el("td", { class: "num", text: money(r.cost) })]);
    }));
    var pager = el("div", { class: "pager" }, [
      el("span", { id: "row-count", text: list.length + " rows" }),
      el("button", { text: "◀", disabled: state.page === 0 ? "" : null, onclick: function () { state.page--; renderTable(); } }),
      el("span", { text: "page " + (state.page + 1) + " of " + pages }),
      el("button", { text: "▶", onclick: function () { if (state.page < pages - 1) { state.page++; renderTable(); } } })]);
    if (state.page > 0) pager.children[1].removeAttribute("disabled");
    box.textContent = "";
    box.appendChild(pager);
    box.appendChild(el("table", { id: "rows" }, [el("thead", null, [head]), body]));
  }

  /* ------------------------------------------------------------ traces */

  function loadTrace(row) {
    if (row.trace !== 1) return null;
    var node = document.getElementById("tr-" + row.index);
    return node ? JSON.parse(node.textContent) : null;
  }

  /* The rows of a query result ({columns, rows}) as a table. */
  function resultTable(value, key) {
    var shown = value.rows.slice(0, 50);
    return el("details", { class: "sql-result" }, [
      el("summary", null, [el("span", { class: "json-key", text: key }), " " + value.rows.length + " rows"]),
      el("table", null, [
        el("thead", null, [el("tr", null, value.columns.map(function (c) { return el("th", { text: String(c) }); }))]),
        el("tbody", null, shown.map(function (row) {
          var cells = Array.isArray(row) ? row : value.columns.map(function (c) { return row[c]; });
          return el("tr", null, cells.map(function (c) {
            return el("td", { text: typeof c === "string" ? c : JSON.stringify(c) });
          }));
        }))])]);
  }

  function jsonTree(value, key) {
    if (typeof value === "string" && /sql/i.test(key)) {
      return el("div", null, [el("span", { class: "json-key", text: key }), el("pre", { class: "sql", text: value })]);
    }
    if (value === null || typeof value !== "object") {
      var text = typeof value === "string" ? value : JSON.stringify(value);
      if (typeof value === "string" && (value.length > 80 || value.indexOf("\n") >= 0)) {
        return el("details", null, [el("summary", null, [el("span", { class: "json-key", text: key })]),
          el("pre", { text: text })]);
      }
      return el("div", null, [el("span", { class: "json-key", text: key + ": " }), text]);
    }
    var keys = Array.isArray(value) ? value.map(function (_, i) { return i; }) : Object.keys(value);
    var body = el("div", { style: "padding-left:14px" });
    var details = el("details", { "data-key": key }, [el("summary", null, [el("span", { class: "json-key", text: key }),
      " " + (Array.isArray(value) ? "[" + keys.length + "]" : "{" + keys.length + "}")]), body]);
    /* Children are built when first opened: a trace may hold thousands. */
    details.addEventListener("toggle", function () {
      if (!details.open || body.childNodes.length) return;
      keys.forEach(function (k) {
        /* Rows of a query result with its columns beside them: a table. */
        var table = k === "rows" && Array.isArray(value.rows) && Array.isArray(value.columns);
        body.appendChild(table ? resultTable(value, "rows") : jsonTree(value[k], String(k)));
      });
    });
    return details;
  }

  function renderCall(call, index) {
    var parse = call.parse || null;
    var summary = el("summary", null, [
      "call " + (call.call !== undefined ? call.call : index),
      call.phase ? " · " + call.phase : "", call.role ? " · " + call.role : "",
      " · " + (call.prompt_tokens || 0) + "+" + (call.completion_tokens || 0) + " tokens",
      call.latency_ms !== undefined ? " · " + fmt(call.latency_ms, 0) + " ms" : "",
      parse ? el("span", { class: "badge " + (parse.ok ? "good" : "bad"), text: parse.ok ? "parsed" : "parse failed" }) : null,
      call.cached ? el("span", { class: "badge", text: "cached" }) : null,
      call.error ? el("span", { class: "badge bad", text: "error" }) : null]);
    var body = [];
    var prompt = call.prompt !== undefined ? call.prompt : call.messages;
    if (prompt !== undefined) {
      body.push(el("div", { text: "prompt" + (call.prompt_source ? " (from " + call.prompt_source + ")" : "") }));
      body.push(el("pre", { class: "prompt", text: typeof prompt === "string" ? prompt : JSON.stringify(prompt, null, 2) }));
    } else {
      body.push(el("p", { class: "note", text: "The prompt is not kept in traces" +
        (call.prompt_chars ? " (" + call.prompt_chars + " characters)" : "") +
        "; ANOT_DEBUG=3 writes every prompt to the run's debug.log." }));
    }
    body.push(el("div", { text: "output" }));
    body.push(el("pre", { class: "output", text: call.output !== undefined && call.output !== null ? String(call.output) : "(none)" }));
    if (call.error) body.push(el("pre", { class: "error", text: String(call.error) }));
    if (parse) body.push(jsonTree(parse, "parse"));
    return el("details", { class: "call" }, [summary].concat(body));
  }

  function nodeLabel(node) {
    var parts = ["#" + node.id];
    ["action", "phase", "option", "answer", "value", "visits", "score", "terminal"].forEach(function (k) {
      if (node[k] !== undefined && node[k] !== null && typeof node[k] !== "object") parts.push(k + " " + node[k]);
    });
    return parts.join(" · ");
  }

  /* A search tree: nodes with ids and parents (LATS, the agents). */
  function renderTree(tree) {
    var byParent = {};
    tree.nodes.forEach(function (node) {
      var p = node.parent === undefined || node.parent === null ? "root" : String(node.parent);
      (byParent[p] = byParent[p] || []).push(node);
    });
    function branch(parent) {
      var kids = byParent[parent] || [];
      if (!kids.length) return null;
      return el("ul", null, kids.map(function (node) {
        var rest = {};
        Object.keys(node).forEach(function (k) { if (k !== "children") rest[k] = node[k]; });
        return el("li", null, [jsonTree(rest, nodeLabel(node)), branch(String(node.id))]);
      }));
    }
    return el("div", { class: "tree" }, [branch("root")]);
  }

  function isTree(value) {
    return value && typeof value === "object" && Array.isArray(value.nodes) && value.nodes.length &&
      value.nodes[0] && value.nodes[0].id !== undefined;
  }

  function findKey(value, key, depth) {
    if (!value || typeof value !== "object" || depth < 0) return undefined;
    if (Object.prototype.hasOwnProperty.call(value, key)) return value[key];
    var keys = Object.keys(value);
    for (var i = 0; i < keys.length; i++) {
      var found = findKey(value[keys[i]], key, depth - 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /* ANoT's LWT script as a DAG: each step, the steps it reads ({(name)}
   * or {name}), its layer (steps of one layer run in parallel) and what it
   * returned (step_results). */
  function renderLwt(lines, results) {
    var steps = [], byId = {};
    lines.forEach(function (line) {
      var m = /^\(([^)]+)\)=([\s\S]*)$/.exec(line);
      if (!m) return;
      var step = { id: m[1], body: m[2], deps: [] };
      steps.push(step);
      byId[step.id] = step;
    });
    steps.forEach(function (step) {
      var re = /\{\(?([A-Za-z0-9_]+)\)?\}/g, m;
      while ((m = re.exec(step.body)) !== null) {
        if (byId[m[1]] && m[1] !== step.id && step.deps.indexOf(m[1]) < 0) step.deps.push(m[1]);
      }
    });
    function layer(step, seen) {
      if (step.layer !== undefined) return step.layer;
      if (seen[step.id]) return 0;
      seen[step.id] = true;
      step.layer = 1 + step.deps.reduce(function (top, id) { return Math.max(top, layer(byId[id], seen)); }, 0);
      return step.layer;
    }
    steps.forEach(function (step) { layer(step, {}); });
    var body = steps.map(function (step) {
      var result = (results || {})[step.id] || {};
      return el("tr", { "data-step": step.id }, [
        el("td", { class: "mono", text: "(" + step.id + ")" }), el("td", { class: "num", text: String(step.layer) }),
        el("td", { class: "mono", text: step.deps.map(function (d) { return "(" + d + ")"; }).join(" ") }),
        el("td", null, [el("pre", { text: step.body })]),
        el("td", null, [el("pre", { class: result.error ? "error" : "", text: result.output !== undefined ? String(result.output) : "" })]),
        el("td", { class: "num", text: result.latency_ms !== undefined ? fmt(result.latency_ms, 0) : "" })]);
    });
    var layers = steps.reduce(function (top, s) { return Math.max(top, s.layer); }, 0);
    return el("details", { class: "lwt", open: "" }, [
      el("summary", { text: "LWT script: " + steps.length + " steps in " + layers + " layers" }),
      el("table", null, [el("thead", null, [el("tr", null, ["step", "layer", "reads", "instruction", "result", "ms"].map(function (h) {
        return el("th", { text: h });
      }))]), el("tbody", null, body)])]);
  }

  function renderTraceBody(trace, box) {
    Object.keys(trace).forEach(function (key) {
      var value = trace[key];
      if (key === "calls" && Array.isArray(value)) {
        box.appendChild(el("div", { class: "calls" }, [el("h5", { text: value.length + " LLM call" + (value.length === 1 ? "" : "s") })]
          .concat(value.map(renderCall))));
      } else if (isTree(value)) {
        box.appendChild(el("details", { class: "search-tree" }, [el("summary", { text: key + " (" + value.nodes.length + " nodes)" }), renderTree(value)]));
      } else if (typeof value === "string" && /sql/i.test(key)) {
        box.appendChild(el("div", null, [el("span", { class: "json-key", text: key }), el("pre", { class: "sql", text: value })]));
      } else if (value && typeof value === "object" && !Array.isArray(value) && Array.isArray(value.calls)) {
        var sub = el("div", { style: "padding-left:10px" });
        renderTraceBody(value, sub);
        box.appendChild(el("details", null, [el("summary", { text: key }), sub]));
      } else {
        box.appendChild(jsonTree(value, key));
      }
    });
  }

  /* The request's conditions: the validator's verdict on the first item
   * next to the gold's (1 satisfied, 0 unknown, -1 not satisfied). */
  var VERDICT = { "1": "✓ yes", "0": "? unknown", "-1": "✗ no" };
  function renderConditions(row) {
    var keys = Object.keys(row.goldConditions || row.top1Conditions || {});
    if (!keys.length) return null;
    var isGold = row.rank === 1;
    var failedKeys = row.top1Failed || (row.top1Conditions ? keys.filter(function (k) { return row.top1Conditions[k] === -1; }) : []);
    var failed = failedKeys.length;
    var caption = !row.top1 ? "nothing ranked first" :
      isGold ? "first: the gold" :
      "first: " + row.top1 + (failed === 0 ? " — fails no condition" : " — fails " + failed + " condition" + (failed === 1 ? " (near miss)" : "s"));
    function cell(conditions, key, who) {
      if (!conditions || !(key in conditions)) return el("td", { text: "–" });
      var v = conditions[key];
      var attrs = { class: "verdict v" + v, text: VERDICT[String(v)] };
      attrs["data-" + who] = String(v);
      return el("td", attrs);
    }
    return el("details", { class: "conditions", open: "", "data-method": row.method }, [
      el("summary", { text: caption }),
      el("table", null, [
        el("thead", null, [el("tr", null, ["condition", "kind", "first item", "gold"].map(function (h) { return el("th", { text: h }); }))]),
        el("tbody", null, keys.map(function (k) {
          var excused = row.top1Conditions && row.top1Conditions[k] === -1 && failedKeys.indexOf(k) < 0;
          return el("tr", { "data-condition": k, class: failedKeys.indexOf(k) >= 0 ? "failed" : null,
                            title: excused ? "not failed: another alternative of its OR holds" : null }, [
            el("td", { class: "mono", text: k }),
            el("td", { text: row.conditionKinds && row.conditionKinds[k] ? row.conditionKinds[k] : "" }),
            cell(row.top1Conditions, k, "top1"), cell(row.goldConditions, k, "gold")]);
        }))])]);
  }

  function renderTrace(row) {
    var box = el("div", { class: "trace", "data-method": row.method });
    var shown = row.rank ? "gold ranked " + row.rank : row.error ? "failed" : "gold not in the top " + row.k;
    box.appendChild(el("h4", null, [row.method, el("span", { class: "badge " + (row.rank === 1 ? "good" : row.rank > 0 ? "" : "bad"), text: shown })]));
    box.appendChild(el("div", { class: "facts", text: row.calls + " calls · " + row.tokens + " tokens · " + money(row.cost, true) + " · " + fmt(row.latency, 0) + " ms" }));
    if (row.error) box.appendChild(el("pre", { class: "error", text: row.error }));
    var conditions = renderConditions(row);
    if (conditions) box.appendChild(conditions);
    if (row.trace === -1) {
      box.appendChild(el("p", { class: "note", text: "This trace was left out of the report (trace budget spent); it is in " + row.runInfo.directory + "/trace_" + row.n + ".jsonl." }));
      return box;
    }
    var trace = loadTrace(row);
    if (!trace) {
      /* No trace: what the method ranked and answered is what there is. */
      var answer = row.answer || [null, []];
      box.appendChild(el("p", { class: "note", text: "No trace recorded; the method ranked:" }));
      box.appendChild(el("ol", { class: "top-items" }, answer[1].map(function (name) { return el("li", { text: name }); })));
      box.appendChild(el("div", { text: "answer" }));
      box.appendChild(el("pre", { class: "output raw-response", text: answer[0] !== null ? answer[0] : "(none)" }));
      return box;
    }
    var lwt = findKey(trace, "expanded_lwt", 2);
    if (Array.isArray(lwt)) box.appendChild(renderLwt(lwt, findKey(trace, "step_results", 2)));
    renderTraceBody(trace, box);
    return box;
  }

  function openDetail(row) {
    var detail = document.getElementById("detail");
    var same = rows.filter(function (r) {
      return r.request === row.request && r.n === row.n && r.run === row.run && r.attack === row.attack;
    });
    var info = data.requests[row.request];
    detail.textContent = "";
    detail.hidden = false;
    detail.setAttribute("data-request", row.request);
    detail.appendChild(el("h3", { text: row.request + (row.group ? " (" + row.group + ")" : "") + " · N=" + row.n + " · run " + row.run + " · " + row.attack }));
    detail.appendChild(el("div", { class: "request-text", text: info ? info.text : "(The request's text is not available: its benchmark is not at the path the run names, or has changed.)" }));
    if (info && info.gold_item) detail.appendChild(el("div", { class: "facts", text: "gold: " + (info.gold_name ? info.gold_name + " " : "") + "(" + info.gold_item + ")" }));
    detail.appendChild(el("div", { class: "side-by-side" }, same.map(renderTrace)));
    Array.prototype.forEach.call(document.querySelectorAll("#rows tbody tr"), function (tr) {
      tr.classList.toggle("open", same.some(function (r) { return String(r.index) === tr.getAttribute("data-row"); }));
    });
    var hash = "#request=" + encodeURIComponent(row.request) + "&n=" + row.n + "&run=" + row.run + "&attack=" + encodeURIComponent(row.attack);
    if (location.hash !== hash) history.replaceState(null, "", hash);
    detail.scrollIntoView({ block: "nearest" });
  }

  function openFromHash() {
    var params = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("=");
      if (kv.length === 2) params[kv[0]] = decodeURIComponent(kv[1]);
    });
    if (!params.request) return;
    var row = rows.filter(function (r) {
      return r.request === params.request && (!params.n || String(r.n) === params.n) &&
        (!params.run || String(r.run) === params.run) && (!params.attack || r.attack === params.attack);
    })[0];
    if (row) openDetail(row);
  }

  renderComparison();
  renderFilters();
  renderTable();
  openFromHash();
  window.addEventListener("hashchange", openFromHash);
})();

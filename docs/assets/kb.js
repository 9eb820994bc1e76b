// Every page: the 简体/繁體 switch keeps the anchor; the header search box; the search page
// (search.md); the offline service worker. The search engine (kb-engine.js) and its index are
// loaded on the first search, not with the page. With `kb serve` the API answers; without it
// (a static host, offline, file://) the same engine runs here over the static index.
// `kb build` replaces the two names below with the fingerprinted files of this build.
(function () {
  "use strict";
  var ENGINE = "__KB_ENGINE__";
  var INDEX = "__KB_INDEX__";
  var READY = "__KB_OFFLINE_READY__";   // the cache entry the edition's worker writes once all of it is kept
  var script = document.currentScript;
  var root = new URL("../", script && script.src ? script.src : location.href).href;  // edition root
  var hant = /\/hant\/$/.test(root);
  var fileMode = location.protocol === "file:";

  // --- the 简体/繁體 switch -----------------------------------------------------------------
  // It keeps the reader's place: the clause being read (the last heading above the top fifth of
  // the window; the page's anchor at the top of the page), and on the search page the question
  // (?q=…&work=…) too.
  function readingAnchor() {
    var header = document.querySelector(".md-header");
    var below = header ? header.getBoundingClientRect().bottom : 0, top = below + window.innerHeight / 5, found = null;
    // the clause landed on, still at the top, is the one being read (a heading with its first
    // clause just under it: 45C4, not 45C4(a))
    var landed = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (landed) {
      var at = landed.getBoundingClientRect().top;
      if (at >= below - 8 && at <= top) return location.hash;
    }
    var heads = document.querySelectorAll(".md-content h1[id], .md-content h2[id], .md-content h3[id], " +
                                          ".md-content h4[id], .md-content h5[id], .md-content h6[id]");
    for (var i = 0; i < heads.length && heads[i].getBoundingClientRect().top <= top; i++) found = heads[i];
    return found && window.scrollY > 0 ? "#" + found.id : location.hash;
  }
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a.kb-switch-link");
    if (!link) return;
    var query = document.getElementById("kb-search") ? location.search : "";
    var target = link.href = link.href.split("#")[0].split("?")[0] + query + (query ? location.hash : readingAnchor());
    // Offline, the other edition opens only if this device kept it (each edition's service worker
    // keeps its own)
    if (!fileMode) openIfKept(event, target, link.getAttribute("data-msg-offline"));
  });
  // Offline, a link is followed only to what this device kept; else the reader stays here and is
  // told why (``message``), instead of a browser error page. Online, the link is left alone.
  function openIfKept(event, href, message) {
    if (navigator.onLine !== false || !window.caches) return;
    event.preventDefault();
    caches.match(href, { ignoreSearch: true }).then(function (hit) {
      if (hit) location.href = href; else notice(message || "");
    }, function () { location.href = href; });
  }
  // a short message at the bottom of the window, gone after ``ms`` (8 s) or at the reader's next
  // tap or key anywhere; a tap goes through it to what lies beneath (a keypad's 计台, a link)
  function notice(text, ms) {
    var box = document.querySelector(".kb-notice");
    if (!box) {
      box = document.body.appendChild(el("div", "kb-notice"));
      box.gone = function () {
        clearTimeout(notice.timer); box.remove();
        document.removeEventListener("pointerdown", box.gone, true); document.removeEventListener("keydown", box.gone, true);
      };
      document.addEventListener("pointerdown", box.gone, true); document.addEventListener("keydown", box.gone, true);
    }
    box.setAttribute("role", "status");
    box.textContent = text;
    clearTimeout(notice.timer);
    notice.timer = setTimeout(box.gone, ms || 8000);
  }

  // --- the print editions (PDF): their size shown; offline, opened only if this device kept one
  // (the service worker keeps a PDF once it has been opened; the offline download holds none)
  var pdfs = document.querySelectorAll('a[type="application/pdf"]');
  if (!fileMode && navigator.onLine !== false) {
    Array.prototype.forEach.call(pdfs, function (a) {
      fetch(a.href, { method: "HEAD" }).then(function (resp) {
        var n = Number(resp.headers.get("content-length"));
        if (resp.ok && n > 0) a.appendChild(document.createTextNode(" · " + (n / 1048576).toFixed(1) + " MB"));
      }).catch(function () {});
    });
  }
  // Opened from disk (file://), a link to a folder shows the browser's listing of that folder: the
  // site's links to a folder go to the folder's index.html instead, those in the page at load and
  // those added later (search results) when followed. A static host and the offline zip need no help.
  function toIndexFile(a) {
    if (a.protocol === "file:" && /\/$/.test(a.pathname)) a.href = a.href.replace(/\/(?=[?#]|$)/, "/index.html");
  }
  if (fileMode) {
    Array.prototype.forEach.call(document.querySelectorAll("a[href]"), toIndexFile);
    document.addEventListener("click", function (event) {
      var a = event.target.closest && event.target.closest("a[href]");
      if (a) toIndexFile(a);
    }, true);
  }
  document.addEventListener("click", function (event) {
    var a = event.target.closest && event.target.closest('a[type="application/pdf"]');
    if (!a) return;
    if (fileMode) { event.preventDefault(); notice(a.getAttribute("data-msg-file")); return; }
    openIfKept(event, a.href, a.getAttribute("data-msg-offline"));
  });

  // --- the menu opens at the page being read (not at the book's first law) -----------------
  // the nearest box that scrolls within the menu (the sidebar; on a phone, the book's panel), or
  // none: a short menu does not scroll, and the page itself is never moved from here
  function scroller(node) {
    var side = node && node.closest(".md-sidebar--primary");
    for (var n = node && node.parentElement; n && side && side.contains(n); n = n.parentElement) {
      var y = getComputedStyle(n).overflowY;
      if ((y === "auto" || y === "scroll") && n.scrollHeight > n.clientHeight) return n;
    }
    return null;
  }
  function showActiveNav() {
    var active = document.querySelector(".md-sidebar--primary .md-nav--primary .md-nav__link--active");
    var wrap = scroller(active);
    if (!wrap || !wrap.clientHeight) return;
    var below = active.getBoundingClientRect().top - wrap.getBoundingClientRect().top;
    if (below < 0 || below > wrap.clientHeight * 0.6) wrap.scrollTop += below - wrap.clientHeight / 3;
  }
  var drawer = document.getElementById("__drawer");
  if (drawer) drawer.addEventListener("change", function () { if (drawer.checked) setTimeout(showActiveNav, 0); });
  window.addEventListener("load", showActiveNav);

  // the edition this device reads: the site's root page opens it next time (offline, it is the one kept)
  if (!fileMode) { try { localStorage.setItem("kb-edition", hant ? "hant" : "hans"); } catch (e) { /* private mode */ } }

  // --- offline: one service worker per edition --------------------------------------------
  if (!fileMode && "serviceWorker" in navigator && window.isSecureContext) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register(root + "sw.js", { scope: root }).catch(function () {});
      // the site's root page (outside both editions' scopes) opens offline too
      navigator.serviceWorker.register(new URL("../sw.js", root).href, { scope: new URL("../", root).href }).catch(function () {});
    });
  }

  // Whether this device keeps the edition (the worker's marker, written once every file is
  // cached): said on the home page, and told once on any page when it has just been saved. Not
  // said when the reader asked to save data (the worker then keeps only what is opened).
  function offlineState() {
    var conn = navigator.connection, form = document.querySelector("form[data-kb-hsearch]");
    if (fileMode || !window.caches || !("serviceWorker" in navigator) || !window.isSecureContext || !form ||
        (conn && conn.saveData)) return;
    var box = document.querySelector(".kb-offline-state");
    var readyText = form.getAttribute("data-msg-offline-ready"), savingText = form.getAttribute("data-msg-offline-saving");
    function say(text) { if (box) { box.textContent = text; box.hidden = false; } }
    function kept() {
      return caches.match(root + READY).then(function (hit) { return !!hit; }, function () { return false; });
    }
    kept().then(function (yes) {
      if (yes) { say(readyText); return; }
      say(savingText);
      navigator.serviceWorker.addEventListener("controllerchange", function () {
        kept().then(function (now) { if (now) { say(readyText); notice(readyText, 4000); } });
      });
    });
  }
  offlineState();

  // --- the engine, loaded on first use ----------------------------------------------------
  var pending = {};
  window.kbIndexChunk = function (name, data) {
    if (pending[name]) { pending[name].resolve(data); delete pending[name]; }
  };
  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src; s.async = true;
      s.onload = function () { resolve(); };
      // a file of the engine or its index that neither the network nor this device's cache gave
      s.onerror = function () { var e = new Error("cannot load " + src); e.unloaded = true; reject(e); };
      document.head.appendChild(s);
    });
  }
  function loadChunk(rel) {
    var name = rel.split("/").pop().split(".")[0];
    return new Promise(function (resolve, reject) {
      pending[name] = { resolve: resolve };
      loadScript(root + rel).catch(function (err) { delete pending[name]; reject(err); });
    });
  }
  var enginePromise = null;
  function engine() {
    if (!enginePromise) {
      enginePromise = loadScript(root + ENGINE).then(function () {
        return window.KbEngine.open(INDEX, loadChunk);
      });
      enginePromise.catch(function () { enginePromise = null; });
    }
    return enginePromise;
  }

  // unknown | present | absent. kb serve marks its pages with a cookie (kb-api=1; kb/app/serve.py):
  // without it (a static host, a file) the API is not asked; what it answered is kept for the tab.
  var apiState = fileMode || !/(?:^|;\s*)kb-api=1(?:;|$)/.test(document.cookie) ? "absent" : remembered() || "unknown";
  function remembered(value) {
    try {
      if (value) sessionStorage.setItem("kb-api", value);
      return sessionStorage.getItem("kb-api");
    } catch (e) { return null; }
  }
  // An API that has not answered in this long (a stalled venue network) is given up for the tab:
  // the site's own engine gives the same results.
  var API_WAIT_MS = 2500;
  function apiSearch(q, work, limit, lead) {
    var params = new URLSearchParams({ q: q, limit: String(limit), script: hant ? "hant" : "hans" });
    if (work) params.set("work", work);
    if (lead) params.set("lead", lead);
    var abort = typeof AbortController === "function" ? new AbortController() : null;
    var timer = abort ? setTimeout(function () { abort.abort(); }, API_WAIT_MS) : null;
    var options = { headers: { Accept: "application/json" } };
    if (abort) options.signal = abort.signal;
    return fetch("/api/search?" + params.toString(), options)
      .then(function (resp) {
        clearTimeout(timer);
        var json = /json/.test(resp.headers.get("content-type") || "");
        if (!json) throw new Error("no API");
        return resp.json().then(function (body) {
          if (resp.ok && body && Array.isArray(body.results)) return body;
          if (resp.status >= 400 && resp.status < 500 && body && typeof body.error === "string") {
            var e = new Error(body.error); e.bad = true; throw e;
          }
          throw new Error("no API");
        });
      });
  }

  // The answer {results: [{id, work, citation, title, snippet, url, twins, under, in_force}] best first,
  // not_held: {matters, weak, text} or null}; the API's when it answers (kb/search/engine.py answer).
  // ``lead``: the rule book whose clause leads a clause and its twin (the book being read).
  function search(q, work, limit, lead) {
    function local() {
      return engine().then(function (e) { return e.answer(q, { limit: limit, work: work || null, lead: lead || null }); });
    }
    if (apiState === "absent") return local();
    return apiSearch(q, work, limit, lead).then(function (r) { apiState = remembered("present"); return r; }, function (err) {
      if (err && err.bad) throw err;
      apiState = remembered("absent");
      return local();
    });
  }

  // --- rendering --------------------------------------------------------------------------
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text) node.textContent = text;
    return node;
  }
  function decodeEntities(text) {
    var map = { amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'" };
    return text.replace(/&(amp|lt|gt|quot|#x27|#39);/g, function (m, name) { return map[name]; });
  }
  // A snippet is escaped text with <mark>…</mark>: anything else stays text.
  function appendSnippet(node, snippet) {
    var parts = String(snippet || "").split(/(<mark>|<\/mark>)/), target = node;
    parts.forEach(function (part) {
      if (part === "<mark>") { if (target === node) { target = el("mark"); node.appendChild(target); } }
      else if (part === "</mark>") target = node;
      else if (part) target.appendChild(document.createTextNode(decodeEntities(part)));
    });
  }
  // A result's link; its id goes in data-kb-id (data-kb-twin for the twin attached to it).
  function link(r, cls, attr) {
    var a;
    if (typeof r.url === "string" && /^[a-z0-9][a-z0-9\-\/]*\/#[A-Za-z0-9\-]+$/.test(r.url)) {
      a = el("a", cls, String(r.citation || r.id));
      var url = r.url;
      if (fileMode) url = url.replace("/#", "/index.html#");
      a.href = root + url;
    } else {
      a = el("span", cls, String(r.citation || r.id));
    }
    a.setAttribute(attr || "data-kb-id", String(r.id));
    return a;
  }

  // Fill a result list; a bridge clause's twin in the other translation is attached to its result.
  function render(list, results, labels) {
    list.textContent = "";
    results.forEach(function (r) {
      var li = el("li", "kb-result"), head = el("div", "kb-result-head");
      head.appendChild(link(r, "kb-result-cite"));
      if (r.title && r.title !== r.citation) head.appendChild(el("span", "kb-result-title", String(r.title)));
      if (r.tai) head.appendChild(el("span", "kb-result-tai", String(r.tai) + "台"));
      if (labels["work-" + r.work]) head.appendChild(el("span", "kb-result-work", labels["work-" + r.work]));
      li.appendChild(head);
      // found by its 2017 citation (2017 27B1b): the line under the clause on its page (kb/search/inforce.py)
      var inForce = r.in_force && typeof r.in_force === "object" ? r.in_force : null;
      if (inForce && inForce.text) {
        var change = /^[a-z]+$/.test(String(inForce.change)) ? String(inForce.change) : "";
        var line = el("p", "kb-result-in-force kb-in-force" + (change ? " kb-in-force-" + change : ""));
        if (change === "changed") {   // marked as under the clause: the eye catches a changed rule
          var mark = el("span", "kb-in-force-mark", "\u26a0");
          mark.setAttribute("aria-hidden", "true");
          line.appendChild(mark);
          line.appendChild(document.createTextNode(" "));
        }
        line.appendChild(document.createTextNode(String(inForce.text)));
        li.appendChild(line);
      }
      // the clause it stands under, with its lead-in: 43B2(a) reads with 43B2's condition
      var up = r.under && typeof r.under === "object" ? r.under : null;
      if (up && up.citation) {
        var under = el("p", "kb-result-under");
        under.appendChild(el("span", "kb-result-under-cite", String(up.name || up.citation)));
        if (up.text) under.appendChild(document.createTextNode(String(up.text)));
        li.appendChild(under);
      }
      var snip = el("p", "kb-result-snippet");
      appendSnippet(snip, r.snippet);
      li.appendChild(snip);
      (Array.isArray(r.twins) ? r.twins : []).forEach(function (t) {
        var twin = el("p", "kb-result-twin");
        twin.appendChild(document.createTextNode((labels.twin || "") + " "));
        twin.appendChild(link(t, "kb-result-cite", "data-kb-twin"));
        if (labels["work-" + t.work]) twin.appendChild(el("span", "kb-result-work", labels["work-" + t.work]));
        li.appendChild(twin);
      });
      list.appendChild(li);
    });
    legend(list, results, labels);
  }

  // Under results whose text shows 〔 〕 (a number the editors restored) or □ (one lost), what
  // they mean, as under a law page's clauses: at the table they read like a fault otherwise.
  function legend(list, results, labels) {
    var next = list.nextElementSibling, shown = JSON.stringify(results);
    if (!next || !next.classList.contains("kb-legend")) {
      next = el("p", "kb-footnote kb-legend");
      list.parentNode.insertBefore(next, list.nextSibling);
    }
    next.textContent = (shown.indexOf("\u3014") >= 0 ? labels.brackets || "" : "") +
      (shown.indexOf("\u25a1") >= 0 ? labels.lost || "" : "");
    next.hidden = !next.textContent;
  }

  function labelsOf(node) {
    var out = {};
    Array.prototype.forEach.call(node.attributes, function (a) {
      if (a.name.indexOf("data-msg-") === 0) out[a.name.slice(9)] = a.value;
    });
    return out;
  }
  function fmt(text, values) {
    return String(text || "").replace(/\{(\w+)\}/g, function (m, k) { return k in values ? String(values[k]) : m; });
  }

  // A runner for one result list: the latest query wins; data-kb-state tells tests when done.
  // ``limit``: how many results to ask for (the search page raises it for "more");
  // ``done(results, limit)``: called after each list is shown.
  function runner(list, status, labels, limit, done) {
    var seq = 0;
    var run = function (q, work, lead) {
      var mine = ++seq;
      q = q.trim();
      if (!q) {
        list.textContent = ""; if (status) status.textContent = "";
        list.setAttribute("data-kb-state", "idle");
        return;
      }
      list.setAttribute("data-kb-state", "searching");
      if (status) status.textContent = labels.searching || "";
      var asked = run.limit;
      search(q, work, asked, lead).then(function (answer) {
        if (mine !== seq) return;
        var results = answer.results;
        render(list, results, labels);
        var more = results.length >= asked && labels["count-more"];
        if (status) {
          // nothing found with no scope set: no advice to widen it
          var none = !work && labels["none-all"] || labels.none;
          status.textContent = fmt(!results.length ? none : more ? labels["count-more"] : labels.count,
                                   { q: q, n: results.length, coverage: labels.coverage || "" });
          // a question that may concern a matter no book holds (Law 16's hesitation, riichi mahjong),
          // or that nothing held matches, is told so with its results (the answer's not_held)
          if (answer.not_held) status.appendChild(el("span", "kb-outside", String(answer.not_held.text || "")));
        }
        list.setAttribute("data-kb-state", "done");
        if (done) done(results, asked);
      }, function (err) {
        if (mine !== seq) return;
        list.textContent = "";
        if (status) {
          status.textContent = err && err.unloaded && labels.unloaded ? labels.unloaded
            : fmt(labels.bad, { q: q, error: err && err.message || "" });
        }
        list.setAttribute("data-kb-state", "error");
        if (done) done([], asked);
      });
    };
    run.limit = limit;
    return run;
  }

  function searchPage(q, lead) {
    return root + "search/" + (fileMode ? "index.html" : "") + (q ? "?q=" + encodeURIComponent(q) : "") +
      (q && lead ? "&lead=" + lead : "");
  }
  // ``id`` if it names a rule book (one of the labels' work-ID), else "".
  function workOf(id, labels) { return /^[a-z0-9]+$/.test(id || "") && labels["work-" + id] ? id : ""; }
  // The rule book of the page being read (its first path segment), if it is one: its clauses lead.
  function readingWork(labels) { return workOf(location.href.slice(root.length).split(/[\/?#]/)[0], labels); }

  // --- the header box on every page -------------------------------------------------------
  var KEPT = "kb-hsearch-kept";   // sessionStorage: the question whose result was opened, and from where
  function header() {
    var form = document.querySelector("form[data-kb-hsearch]");
    if (!form) return;
    var input = form.querySelector("input"), open = form.querySelector(".kb-hsearch-open");
    var panel = el("div", "kb-hsearch-panel");
    var list = el("ol", "kb-search-results");
    list.setAttribute("data-kb-results", "");
    var more = el("a", "kb-hsearch-more");
    var status = el("p", "kb-hsearch-status");
    status.setAttribute("role", "status");
    // the link to all results first, held at the top of the panel: reachable on a phone without scrolling
    panel.appendChild(more); panel.appendChild(status); panel.appendChild(list);
    panel.hidden = true;
    form.appendChild(panel);
    // data-msg-*: the rule book of each result (work-ID), searching, none, more and twin, in the
    // edition's script (kb/site/build.py header_messages)
    var labels = labelsOf(form);
    labels.bad = "{error}";
    labels.count = "";
    var run = runner(list, status, labels, 8), timer = null, lead = readingWork(labels);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      location.href = searchPage(input.value.trim(), lead);
    });
    input.addEventListener("focus", function () { engineSoon(); });
    function show(q) {
      panel.hidden = !q.trim();
      more.textContent = labels.more;
      more.href = searchPage(q.trim(), lead);
      run(q, "", lead);
    }
    input.addEventListener("input", function () {
      clearTimeout(timer);
      var q = input.value;
      timer = setTimeout(function () { show(q); }, 200);
    });
    open.addEventListener("click", function () {
      form.classList.add("kb-hsearch--open");
      input.focus();
    });
    function close() { panel.hidden = true; form.classList.remove("kb-hsearch--open"); }
    form.querySelector(".kb-hsearch-close").addEventListener("click", function () { close(); input.blur(); });
    document.addEventListener("click", function (event) {
      if (!form.contains(event.target)) close();
    });
    // A result on this very page only scrolls to its clause: the panel must not stay over it.
    // The question is kept for this tab, so that Back from the clause opens it again (a director
    // comparing two candidate clauses does not type it twice).
    list.addEventListener("click", function (event) {
      if (event.target.closest && event.target.closest("a")) {
        try { sessionStorage.setItem(KEPT, JSON.stringify({ q: input.value, from: location.href })); } catch (e) {}
        close(); input.blur();
      }
    });
    function reopen() {
      var kept = null;
      try { kept = JSON.parse(sessionStorage.getItem(KEPT) || "null"); } catch (e) {}
      if (!kept || kept.from !== location.href || !String(kept.q || "").trim()) return;
      input.value = kept.q;
      form.classList.add("kb-hsearch--open");
      show(kept.q);
    }
    var nav = window.performance && performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null;
    if (nav && nav.type === "back_forward") reopen();
    window.addEventListener("pageshow", function (event) { if (event.persisted) reopen(); });
    input.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { close(); input.blur(); }
      else if (event.key === "ArrowDown" && !panel.hidden) step(event, 0);
    });
    // The arrow keys walk the results (and back up into the box); Escape returns to the box.
    function results() { return Array.prototype.slice.call(list.querySelectorAll("a[data-kb-id]")); }
    function step(event, to) {
      var links = results();
      if (!links.length) return;
      event.preventDefault();
      if (to < 0) input.focus();
      else links[Math.min(to, links.length - 1)].focus();
    }
    list.addEventListener("keydown", function (event) {
      var at = results().indexOf(document.activeElement);
      if (at < 0) return;
      if (event.key === "ArrowDown") step(event, at + 1);
      else if (event.key === "ArrowUp") step(event, at - 1);
      else if (event.key === "Escape") { event.preventDefault(); input.focus(); }
    });
  }
  // Start fetching the engine when someone is about to search (API or not, it is small).
  function engineSoon() { if (apiState !== "present") engine().catch(function () {}); }

  // --- the search page --------------------------------------------------------------------
  var PAGE = 20, PAGE_MAX = 200;   // results shown at first, and at most after "more"
  function page() {
    var box = document.getElementById("kb-search");
    if (!box) return;
    var form = document.getElementById("kb-search-form");
    var input = document.getElementById("kb-q");
    var select = document.getElementById("kb-work");
    var status = document.getElementById("kb-status");
    var list = document.getElementById("kb-results");
    var labels = labelsOf(box);
    var moreButton = document.getElementById("kb-more"), current = { q: "", work: "" };
    // ?lead=: the rule book the reader came from (the header box of its pages), whose clauses lead
    var lead = workOf(new URLSearchParams(location.search).get("lead"), labels);
    var run = runner(list, status, labels, PAGE, function (results, asked) {
      if (moreButton) moreButton.hidden = !(results.length >= asked && asked < PAGE_MAX);
    }), timer = null;
    if (moreButton) {
      moreButton.addEventListener("click", function () {
        run.limit = Math.min(run.limit + PAGE, PAGE_MAX);
        run(current.q, current.work, lead);
      });
    }

    function readUrl() {
      var p = new URLSearchParams(location.search), work = p.get("work") || "";
      if (!select.querySelector('option[value="' + (/^[a-z0-9]*$/.test(work) ? work : "") + '"]')) work = "";
      return { q: (p.get("q") || "").slice(0, 500), work: work };
    }
    function writeUrl(s, push) {
      var p = new URLSearchParams(location.search);   // set in place: the other parameters keep their order
      if (s.q) p.set("q", s.q); else p.delete("q");
      if (s.q && s.work) p.set("work", s.work); else p.delete("work");
      var qs = p.toString(), url = location.pathname + (qs ? "?" + qs : "") + location.hash;
      if (url === location.pathname + location.search + location.hash) return;
      try {
        if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
      } catch (e) { /* file:// may refuse */ }
    }
    function go(s, push) {
      if (input.value !== s.q) input.value = s.q;
      if (select.value !== s.work) select.value = s.work;
      writeUrl({ q: s.q.trim(), work: s.work }, push);
      if (s.q !== current.q || s.work !== current.work) run.limit = PAGE;   // a new question: one page again
      current = { q: s.q, work: s.work };
      // with a question, a phone shows the results, not the page's introduction (search.css)
      document.body.classList.toggle("kb-has-query", !!s.q.trim());
      run(s.q, s.work, lead);
    }
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      clearTimeout(timer);
      go({ q: input.value, work: select.value }, true);
    });
    select.addEventListener("change", function () { go({ q: input.value, work: select.value }, true); });
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { go({ q: input.value, work: select.value }, false); }, 250);
    });
    window.addEventListener("popstate", function () { go(readUrl(), false); });
    var initial = readUrl();
    if (initial.q) go(initial, false);
    else { select.value = initial.work; list.setAttribute("data-kb-state", "idle"); input.focus(); }
    box.setAttribute("data-ready", "1");
  }

  // --- the subject index: the letter bar marks the letter being read -----------------------
  function letters() {
    var bar = document.querySelector(".kb-letters");
    if (!bar) return;
    var links = {};
    Array.prototype.forEach.call(bar.querySelectorAll("a[href^='#letter-']"), function (a) {
      links[a.getAttribute("href").slice(1)] = a;
    });
    var heads = Array.prototype.filter.call(document.querySelectorAll("h2[id^='letter-']"), function (h) { return links[h.id]; });
    function mark() {
      var top = Math.max(bar.getBoundingClientRect().bottom, 48) + 32, current = null;   // 48: under the header
      heads.forEach(function (h) { if (h.getBoundingClientRect().top <= top) current = h.id; });
      Object.keys(links).forEach(function (id) {
        if (id === current) links[id].setAttribute("aria-current", "location");
        else links[id].removeAttribute("aria-current");
      });
      if (current && bar.scrollWidth > bar.clientWidth) {
        var a = links[current], left = a.offsetLeft - bar.offsetLeft;
        if (left < bar.scrollLeft || left + a.offsetWidth > bar.scrollLeft + bar.clientWidth) bar.scrollLeft = left - 8;
      }
    }
    // on a phone the bar is one row that scrolls sideways: its edge fades where more letters wait
    function edges() {
      bar.classList.toggle("kb-more-right", bar.scrollLeft + bar.clientWidth < bar.scrollWidth - 2);
      bar.classList.toggle("kb-more-left", bar.scrollLeft > 2);
    }
    bar.addEventListener("scroll", edges, { passive: true });
    window.addEventListener("resize", edges);
    var queued = false;
    function soon() {
      if (queued) return;
      queued = true;
      requestAnimationFrame(function () { queued = false; mark(); edges(); });
    }
    window.addEventListener("scroll", soon, { passive: true });
    window.addEventListener("hashchange", soon);
    window.addEventListener("load", soon);
    mark();
    edges();
  }

  function start() { header(); page(); letters(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

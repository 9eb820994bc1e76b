// The search page (search.md): asks the kb serve API (/api/search) and lists the clauses found.
// The query lives in the URL (?q=…&work=…). Nothing typed by the user is ever parsed as HTML:
// the page is built with textContent; a snippet's only markup, <mark>, becomes <mark> elements.
// Without the API (a statically hosted site) the page says so and offers the built-in search.
(function () {
  "use strict";
  var root = document.getElementById("kb-search");
  if (!root || !window.fetch || !window.URLSearchParams) return;

  var API = "/api/search";
  var LIMIT = "20";
  var script = document.currentScript;
  // The edition root (…/hans/ or …/hant/): this file is <root>/assets/search.js.
  var editionRoot = new URL("../", script && script.src ? script.src : new URL("../", location.href)).href;
  var hant = /^hant$|\/hant\/$/.test(editionRoot) || /tw|hk|mo|hant/i.test(document.documentElement.lang || "");

  var form = document.getElementById("kb-search-form");
  var input = document.getElementById("kb-q");
  var select = document.getElementById("kb-work");
  var status = document.getElementById("kb-status");
  var list = document.getElementById("kb-results");
  var offline = document.getElementById("kb-offline");
  var offlineText = document.getElementById("kb-offline-text");
  var builtin = document.getElementById("kb-builtin");

  var state = { q: "", work: "" };
  var seq = 0;
  var controller = null;
  var loaded = false;
  var pendingUrl = null;
  var typingTimer = null;

  function msg(name, values) {
    var text = root.getAttribute("data-msg-" + name) || "";
    return text.replace(/\{(\w+)\}/g, function (m, key) {
      return values && Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : m;
    });
  }

  function readUrl() {
    var p = new URLSearchParams(location.search);
    var work = p.get("work") || "";
    if (!select.querySelector('option[value="' + (/^[a-z0-9]*$/.test(work) ? work : "") + '"]')) work = "";
    return { q: (p.get("q") || "").slice(0, 500), work: work };
  }

  function urlFor(s) {
    var p = new URLSearchParams(location.search);
    p.delete("q");
    p.delete("work");
    if (s.q) p.set("q", s.q);
    if (s.q && s.work) p.set("work", s.work);
    var qs = p.toString();
    return location.pathname + (qs ? "?" + qs : "") + location.hash;
  }

  function writeUrl(s, push) {
    var url = urlFor(s);
    if (!loaded) { pendingUrl = url; return; }
    if (url === location.pathname + location.search + location.hash) return;
    if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
    carryToOtherEdition();
  }

  // The 简体/繁體 switch keeps the query (kb.js adds the #anchor when clicked).
  function carryToOtherEdition() {
    var links = document.querySelectorAll("a.kb-switch-link");
    for (var i = 0; i < links.length; i++) {
      var href = links[i].getAttribute("href").split("#")[0].split("?")[0];
      links[i].setAttribute("href", href + location.search);
    }
  }

  function decodeEntities(text) {
    var map = { amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'" };
    return text.replace(/&(amp|lt|gt|quot|#x27|#39);/g, function (m, name) { return map[name]; });
  }

  // A snippet is escaped text with <mark>…</mark>: anything else stays text.
  function appendSnippet(el, snippet) {
    var parts = String(snippet || "").split(/(<mark>|<\/mark>)/);
    var target = el;
    for (var i = 0; i < parts.length; i++) {
      var part = parts[i];
      if (part === "<mark>") {
        if (target === el) { target = document.createElement("mark"); el.appendChild(target); }
      } else if (part === "</mark>") {
        target = el;
      } else if (part) {
        target.appendChild(document.createTextNode(decodeEntities(part)));
      }
    }
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text) node.textContent = text;
    return node;
  }

  function render(results, s) {
    list.textContent = "";
    status.textContent = results.length ? msg("count", { q: s.q, n: results.length }) : msg("none", { q: s.q });
    results.forEach(function (r) {
      var li = el("li", "kb-result");
      var head = el("div", "kb-result-head");
      var cite;
      if (typeof r.url === "string" && /^[a-z0-9][a-z0-9\-\/]*\/#[A-Za-z0-9\-]+$/.test(r.url)) {
        cite = el("a", "kb-result-cite", String(r.citation || r.id));
        cite.href = new URL(r.url, editionRoot).href;
      } else {
        cite = el("span", "kb-result-cite", String(r.citation || r.id));
      }
      head.appendChild(cite);
      if (r.title) head.appendChild(el("span", "kb-result-title", String(r.title)));
      var work = root.getAttribute("data-work-" + r.work);
      if (work) head.appendChild(el("span", "kb-result-work", work));
      li.appendChild(head);
      var snip = el("p", "kb-result-snippet");
      appendSnippet(snip, r.snippet);
      li.appendChild(snip);
      list.appendChild(li);
    });
  }

  function showOffline(s) {
    list.textContent = "";
    status.textContent = "";
    offlineText.textContent = msg("offline");
    builtin.textContent = s && s.q ? msg("builtin-q", { q: s.q }) : msg("builtin");
    builtin.href = editionRoot + "?q=" + encodeURIComponent(s && s.q ? s.q : "");
    offline.hidden = false;
    root.setAttribute("data-state", "offline");
  }

  // Open Material's own search (the header box) with the query, on this page.
  builtin.addEventListener("click", function (event) {
    var toggle = document.getElementById("__search");
    var box = document.querySelector("input[data-md-component=search-query]");
    if (!toggle || !box) return;          // follow the link: Material reads ?q= there
    event.preventDefault();
    if (!toggle.checked) { toggle.checked = true; toggle.dispatchEvent(new Event("change")); }
    box.value = state.q;
    box.focus();
    box.dispatchEvent(new Event("input", { bubbles: true }));
  });

  function run(s, push) {
    state = { q: s.q.trim(), work: s.work };
    if (input.value !== s.q) input.value = s.q;
    if (select.value !== s.work) select.value = s.work;
    writeUrl(state, push);
    var mine = ++seq;
    if (controller) controller.abort();
    controller = window.AbortController ? new AbortController() : null;
    if (!state.q) {
      list.textContent = "";
      status.textContent = "";
      root.setAttribute("data-state", "idle");
      return;
    }
    status.textContent = msg("searching");
    root.setAttribute("data-state", "searching");
    var params = new URLSearchParams({ q: state.q, limit: LIMIT, script: hant ? "hant" : "hans" });
    if (state.work) params.set("work", state.work);
    var shown = { q: state.q, work: state.work };
    fetch(API + "?" + params.toString(), {
      headers: { Accept: "application/json" },
      signal: controller ? controller.signal : undefined
    }).then(function (resp) {
      var json = /json/.test(resp.headers.get("content-type") || "");
      if (!json) throw new Error("no API");
      return resp.json().then(function (body) {
        if (mine !== seq) return;
        if (resp.ok && Array.isArray(body)) {
          offline.hidden = true;
          render(body, shown);
          root.setAttribute("data-state", "done");
        } else if (resp.status >= 400 && resp.status < 500 && body && typeof body.error === "string") {
          list.textContent = "";
          status.textContent = msg("bad", { q: shown.q, error: body.error });
          root.setAttribute("data-state", "error");
        } else {
          throw new Error("bad answer");
        }
      });
    }).catch(function (err) {
      if (mine !== seq || (err && err.name === "AbortError")) return;
      showOffline(shown);
    });
  }

  function probe() {
    fetch("/api/health", { headers: { Accept: "application/json" } }).then(function (resp) {
      if (!resp.ok || !/json/.test(resp.headers.get("content-type") || "")) throw new Error("no API");
      root.setAttribute("data-state", "idle");
    }).catch(function () {
      if (!state.q) showOffline(state);
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    clearTimeout(typingTimer);
    run({ q: input.value, work: select.value }, true);
  });
  select.addEventListener("change", function () {
    run({ q: input.value, work: select.value }, true);
  });
  input.addEventListener("input", function () {
    clearTimeout(typingTimer);
    typingTimer = setTimeout(function () { run({ q: input.value, work: select.value }, false); }, 300);
  });
  window.addEventListener("popstate", function () {
    run(readUrl(), false);
  });

  // Material opens its own search dialog for any page loaded with ?q=, and removes q from the
  // URL when that dialog closes: hide q from it until it has started, then put it back.
  var initial = readUrl();
  if (new URLSearchParams(location.search).has("q")) {
    var p = new URLSearchParams(location.search);
    p.delete("q");
    var qs = p.toString();
    history.replaceState(history.state, "", location.pathname + (qs ? "?" + qs : "") + location.hash);
  }
  window.addEventListener("load", function () {
    setTimeout(function () {
      loaded = true;
      if (pendingUrl !== null) {
        history.replaceState(null, "", pendingUrl);
        pendingUrl = null;
      }
      carryToOtherEdition();
    }, 0);
  });

  if (initial.q) run(initial, false);
  else { select.value = initial.work; probe(); }
  root.setAttribute("data-ready", "1");
})();

// The clause you came for: highlight it (also after in-page navigation), a copy-citation button on
// every clause, and the notes of references that are not links shown on tap.
(function () {
  "use strict";

  function clauseOf(el) { return el && el.closest ? el.closest(".kb-clause") : null; }

  function markTarget() {
    document.querySelectorAll(".kb-target").forEach(function (el) { el.classList.remove("kb-target"); });
    var inner = document.querySelector(".md-content__inner");
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    if (inner) inner.classList.toggle("kb-has-target", !!target);
    var clause = clauseOf(target);
    if (clause) clause.classList.add("kb-target");
    if (target) target.scrollIntoView({ block: "start" });
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    // A page served over plain http on the local network has no clipboard API: use a selection.
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var ok = document.execCommand("copy");
    document.body.removeChild(area);
    return ok ? Promise.resolve() : Promise.reject(new Error("copy failed"));
  }

  function addButton(clause, labels) {
    var heading = clause.querySelector(":scope > h1[id], :scope > h2[id], :scope > h3[id], :scope > h4[id], :scope > h5[id], :scope > h6[id]");
    if (!heading || heading.querySelector(".kb-cite-btn")) return;
    var cite = clause.getAttribute("data-cite");
    var text = document.createElement("span");
    text.className = "kb-h-text";
    while (heading.firstChild) text.appendChild(heading.firstChild);
    heading.appendChild(text);
    var button = document.createElement("button");
    button.type = "button";
    button.className = "kb-cite-btn";
    button.textContent = labels.cite;
    button.setAttribute("aria-label", labels.aria.replace("{cite}", cite));
    button.setAttribute("aria-live", "polite");
    button.addEventListener("click", function () {
      // the book too: the two translations letter their clauses alike (45C4(b) is in both)
      var book = document.querySelector(".kb-book"), url = location.href.split("#")[0] + "#" + heading.id;
      copyText((book ? book.textContent.trim() + " " : "") + cite + " " + url).then(function () {
        button.textContent = labels.copied;
        button.classList.add("kb-copied");
        setTimeout(function () { button.textContent = labels.cite; button.classList.remove("kb-copied"); }, 2000);
      }, function () { location.hash = heading.id; });
    });
    heading.appendChild(button);
  }

  function toggleNote(ref) {
    var next = ref.nextElementSibling;
    if (next && next.classList.contains("kb-ref-note")) {
      next.remove();
      ref.setAttribute("aria-expanded", "false");
      return;
    }
    var note = document.createElement("span");
    note.className = "kb-ref-note";
    note.setAttribute("role", "note");
    note.textContent = "（" + ref.getAttribute("title") + "）";
    ref.after(note);
    ref.setAttribute("aria-expanded", "true");
  }

  function setup() {
    var hant = (document.documentElement.lang || "").toLowerCase().indexOf("hant") >= 0 ||
      /^zh-(tw|hk|mo)/i.test(document.documentElement.lang || "");
    var labels = hant ? { cite: "引用", copied: "已複製", aria: "複製引用 {cite} 與連結" }
                      : { cite: "引用", copied: "已复制", aria: "复制引用 {cite} 与链接" };
    document.querySelectorAll(".kb-clause[data-cite]").forEach(function (c) { addButton(c, labels); });
    document.querySelectorAll(".kb-ref.kb-lost[title], .kb-ref.kb-external[title], .kb-ref.kb-conjecture[title]").forEach(function (ref) {
      ref.setAttribute("role", "button");
      ref.setAttribute("tabindex", "0");
      ref.setAttribute("aria-expanded", "false");
      ref.addEventListener("click", function () { toggleNote(ref); });
      ref.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggleNote(ref); }
      });
    });
    // mkdocs-material's search overlay is a dialog without a name: give it one.
    document.querySelectorAll(".md-search[role=dialog]:not([aria-label]):not([aria-labelledby])").forEach(function (d) {
      d.setAttribute("aria-label", hant ? "搜尋" : "搜索");
    });
    markTarget();
  }

  // A jump to a clause above on the same page scrolls up, and the theme then shows its back-to-top
  // button over the clause landed on: it stays away until the reader scrolls or types again.
  var MOVES = ["wheel", "touchmove", "keydown"];
  function keepTopAway() {
    var top = document.querySelector(".md-top");
    if (!top) return;
    top.classList.add("kb-top-away");
    var back = function () {
      top.classList.remove("kb-top-away");
      MOVES.forEach(function (t) { window.removeEventListener(t, back); });
    };
    MOVES.forEach(function (t) { window.addEventListener(t, back, { passive: true }); });
  }

  window.addEventListener("hashchange", function () { markTarget(); keepTopAway(); });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();

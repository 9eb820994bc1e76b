// The mahjong 台 calculator and the bridge ruling helper (rules/mahjong/, rules/bridge/).
// The calculator asks /api/rules/mahjong/settle under kb serve, and scores in the page otherwise (a
// static host, offline, file://: mahjong.js, the Python scorer's port, with the same answers). The
// bridge helper POSTs to /api/rules/bridge/...; on a static host (or offline) it answers the worked
// examples, which the build ran and put on the page, and says that other inputs need the API.
(function () {
  "use strict";
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // ``text`` in an element, its red suits (♥ ♦) marked as on the built pages (kb/site/mkdocs_hooks.py)
  function suited(tag, cls, text) {
    var e = el(tag, cls);
    String(text).split(/([\u2665\u2666])/).forEach(function (part, i) {
      if (i % 2) e.appendChild(el("span", "kb-suit-red", part)); else if (part) e.appendChild(document.createTextNode(part));
    });
    return e;
  }
  function post(url, body) {
    return fetch(url, {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(body)})
      .then(function (res) {
        var type = res.headers.get("content-type") || "";
        if (type.indexOf("application/json") < 0) throw {offline: true};
        return res.json().then(function (data) { return {ok: res.ok, data: data}; });
      }, function () { throw {offline: true}; });
  }
  function clauseLink(hrefs, id) {
    var known = hrefs[id];
    var a = el(known ? "a" : "span", "kb-clause", known ? known[1] : id.split(":")[1]);
    if (known) a.href = known[0];
    return a;
  }
  // a text naming record ids (…（twmj16:side-bets）) with each id as a link to its clause
  function linked(text, hrefs) {
    var p = el("p"), at = 0, re = /twmj16:[a-z0-9.\-]+/g, m;
    while ((m = re.exec(text)) !== null) {
      p.appendChild(document.createTextNode(text.slice(at, m.index)));
      p.appendChild(clauseLink(hrefs || linked.hrefs, m[0]));
      at = m.index + m[0].length;
    }
    p.appendChild(document.createTextNode(text.slice(at)));
    return p;
  }
  // an error's Chinese half ("牌数不对：… / wrong tile count: …" is written for both readers)
  // and without the field names the API's readers need ("discarder: ", "hand 第2段…": 第2段…)
  function chinese(message) {
    return String(message).split(" / ")[0].replace(/^(?:[a-z_][a-z_0-9.\[\]]*: )+/, "").replace(/^hand (?=第)/, "");
  }
  function offline(out, msgs) {
    out.textContent = "";
    out.appendChild(el("p", "kb-offline", msgs.offline));
  }

  // kb serve marks its pages with a cookie (kb/app/serve.py API_COOKIE); anything else has no API
  var served = location.protocol !== "file:" && /(?:^|;\s*)kb-api=1(?:;|$)/.test(document.cookie);

  var mj = document.getElementById("kb-mj");
  if (mj) {
    var hrefs = JSON.parse(mj.dataset.hrefs), msgs = JSON.parse(mj.dataset.msgs), meldNames = JSON.parse(mj.dataset.melds);
    linked.hrefs = hrefs;
    var engine = window.KbMahjong.engine(JSON.parse(mj.dataset.engine), JSON.parse(mj.dataset.wordings));
    var line = document.getElementById("kb-mj-line"), out = mj.querySelector(".kb-out");
    var view = mj.querySelector(".kb-hand-view");
    // the hand as tiles, with its count, as it is being tapped or typed
    function showHand() {
      view.textContent = "";
      if (!line.value.trim()) {
        view.appendChild(el("span", "kb-hand-count kb-short", fmt(msgs.count, 0)));
        view.appendChild(el("span", "kb-hand-empty", msgs.empty));
        return;
      }
      var hand;
      try { hand = window.KbMahjong.parseLine(line.value); } catch (e) { tally(e); return; }
      // the count first: it is what a tap changes, and the tray (a phone's bottom strip) shows it whole
      var n = hand.concealed.length + 3 * hand.melds.length;
      view.appendChild(el("span", "kb-hand-count" + (n === 17 ? "" : n > 17 ? " kb-over" : " kb-short"), fmt(msgs.count, n)));
      if (n > 17) view.appendChild(el("span", "kb-hand-over", fmt(msgs.more, n - 17)));
      view.appendChild(el("span", "kb-hand-tiles", handText(hand)));
      // a fifth copy is told at once, not only when 计台 is pressed
      var copies = {};
      hand.concealed.concat.apply(hand.concealed, hand.melds.map(function (m) { return m.tiles; }))
        .forEach(function (t) { copies[t] = (copies[t] || 0) + 1; });
      Object.keys(copies).filter(function (t) { return copies[t] > 4; }).forEach(function (t) {
        view.appendChild(el("span", "kb-hand-over", msgs.over.replace("{t}", window.KbMahjong.tileName(t)).replace("{n}", copies[t])));
      });
    }
    function names(ts) { return ts.map(window.KbMahjong.tileName).join(" "); }
    // a parsed hand as tiles: 暗牌：一万 二万 …；胡：五索；碰：南 南 南；花牌：春
    function handText(hand) {
      var parts = [msgs.concealed + "：" + names(hand.concealed), msgs.winning + "：" + names([hand.winning_tile])];
      hand.melds.forEach(function (m) { parts.push(meldNames[m.type] + "：" + names(m.tiles)); });
      if (hand.flowers.length) parts.push(msgs.flowers + "：" + names(hand.flowers));
      return parts.join("；");
    }
    // A line that does not parse yet: the tiles so far, a meld being tapped with how many it still
    // needs (碰：南（还差 2 张）), the count; the error too unless the hand is only unfinished.
    function tally(err) {
      var secs = window.KbMahjong.readSections(line.value), NEED = {chi: 3, pon: 3, kan: 4, ankan: 4};
      var readable = secs.every(function (x) { return x !== null; }), last = secs[secs.length - 1];
      var unfinished = readable && ((last && NEED[last.kind] && last.tiles.length < NEED[last.kind]) ||
                                    !secs.some(function (x) { return x.kind === "concealed" && x.tiles.length; }));
      if (readable) {
        var n = 0, parts = [];
        secs.forEach(function (x) {
          if (x.kind === "concealed") { n += x.tiles.length; parts.push(msgs.concealed + "：" + names(x.tiles)); }
          else if (NEED[x.kind]) {
            var short = NEED[x.kind] - x.tiles.length;
            n += short > 0 ? x.tiles.length : 3;
            parts.push(meldNames[x.kind] + "：" + names(x.tiles) + (short > 0 ? "（" + fmt(msgs.short, short) + "）" : ""));
          } else if (x.kind === "flowers") parts.push(msgs.flowers + "：" + names(x.tiles));
        });
        view.appendChild(el("span", "kb-hand-count" + (n > 17 ? " kb-over" : " kb-short"), fmt(msgs.count, n)));
        view.appendChild(el("span", "kb-hand-tiles", parts.join("；")));
      }
      if (!unfinished) view.appendChild(el("span", "kb-hand-over", chinese(err.message)));
    }
    function fmt(text, n) { return text.replace("{n}", String(n)); }
    line.addEventListener("input", showHand);
    // the winner's 门风 follows from who deals (the dealer is 东): shown beside the dealer
    var dealerSelect = mj.querySelector('[data-pay="dealer"]'), seat = mj.querySelector(".kb-seat");
    function showSeat() { seat.textContent = JSON.parse(seat.dataset.seats)[dealerSelect.value] || ""; }
    dealerSelect.addEventListener("change", showSeat);
    showSeat();
    // the special situations (杠上开花, 天胡 ...): toggles whose words are added to the line at 计台
    var sits = Array.prototype.slice.call(mj.querySelectorAll(".kb-sit")), sitShown = mj.querySelector(".kb-sit-shown");
    function showSits() {
      var on = sits.filter(function (b) { return b.getAttribute("aria-pressed") === "true"; });
      sitShown.textContent = on.length ? on.map(function (b) { return b.textContent; }).join("、") : msgs.none;
    }
    sits.forEach(function (b) {
      b.addEventListener("click", function () {
        b.setAttribute("aria-pressed", String(b.getAttribute("aria-pressed") !== "true"));
        showSits(); save();
      });
    });
    // the hand and its controls are kept for the tab (Back from a clause, the 繁/简 switch)
    var STATE = "kb-mj-state";
    function save(scored) {
      var state = {scored: scored === true, line: line.value, sits: sits.filter(function (b) { return b.getAttribute("aria-pressed") === "true"; })
                     .map(function (b) { return b.dataset.sit; }), controls: {}};
      mj.querySelectorAll("[data-pay], [data-flag]").forEach(function (c) { state.controls[c.dataset.pay || c.dataset.flag] = c.value; });
      try { sessionStorage.setItem(STATE, JSON.stringify(state)); } catch (e) { /* private mode: not kept */ }
    }
    function restore() {
      var state = null;
      try { state = JSON.parse(sessionStorage.getItem(STATE) || "null"); } catch (e) { state = null; }
      if (!state || typeof state !== "object") return false;
      if (typeof state.line === "string") line.value = state.line;
      sits.forEach(function (b) { b.setAttribute("aria-pressed", String((state.sits || []).indexOf(b.dataset.sit) >= 0)); });
      mj.querySelectorAll("[data-pay], [data-flag]").forEach(function (c) {
        var v = (state.controls || {})[c.dataset.pay || c.dataset.flag];
        if (typeof v === "string" && (c.tagName !== "SELECT" || c.querySelector('option[value="' + v + '"]'))) c.value = v;
      });
      return state.scored === true;       // the answer was on the page: it is worked out again
    }
    mj.addEventListener("change", function () { save(); });
    line.addEventListener("input", function () { save(); });
    var kind = "", history = [];
    function sections() { var t = line.value.trim(); return t ? t.split(/\s+/) : []; }
    function tiles(sec) { return (sec.match(/\d[mpsz]/g) || []).length; }
    function plain(sec) { return /^\d/.test(sec) || /^[一二三四五六七八九东南西北中发白東發]/.test(sec); }
    function tap(code, flower) {
      history.push(line.value);
      var secs = sections(), i;
      if (flower) {
        i = secs.findIndex(function (s) { return s.indexOf("花") === 0; });
        if (i < 0) secs.push("花" + code); else secs[i] += code;
      } else if (kind === "" || kind === "花") {
        i = secs.findIndex(plain);
        if (i < 0) secs.unshift(code); else secs[i] += code;
      } else {
        // the meld's word as the edition writes it (槓 in Traditional); a tap on 碰 again starts a new meld
        var last = secs[secs.length - 1], need = (kind === "吃" || kind === "碰") ? 3 : 4, word = words[kind];
        var same = !fresh && last && last.indexOf(word) === 0 && !(kind === "杠" && last.indexOf(words["暗杠"]) === 0);
        if (same && tiles(last) < need) secs[secs.length - 1] = last + code; else secs.push(word + code);
        fresh = false;
        // a meld complete, the next tap is a concealed tile again (as the 暗牌 key then shows)
        if (tiles(secs[secs.length - 1]) === need) setKind("");
      }
      line.value = secs.join(" ");
      showHand(); save();
    }
    var kinds = mj.querySelectorAll(".kb-kind:not(.kb-sit)"), words = {}, fresh = false;
    kinds.forEach(function (b) { words[b.dataset.kind] = b.dataset.word || b.dataset.kind; });
    function setKind(k) {
      kind = k;
      fresh = true;
      kinds.forEach(function (x) { x.classList.toggle("kb-on", x.dataset.kind === k); });
    }
    kinds.forEach(function (b) { b.addEventListener("click", function () { setKind(b.dataset.kind); }); });
    setKind("");
    mj.querySelectorAll(".kb-tile").forEach(function (b) {
      b.addEventListener("click", function () { tap(b.dataset.code, b.classList.contains("kb-flower")); });
    });
    // a new hand: no tiles, no special situation (杠上开花 is one hand's, not the next one's), 胡法
    // back to 自摸 and no streak (each hand's own, and silently scored if kept); who deals and the
    // round's wind stay, as they do at the table
    mj.querySelector('[data-act="clear"]').addEventListener("click", function () {
      history.push(line.value); line.value = ""; out.textContent = "";
      sits.forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
      mj.querySelector('[data-pay="how"]').selectedIndex = 0;
      mj.querySelector('[data-flag="连"]').value = "0";
      setKind(""); showSits(); showHand(); save();
    });
    mj.querySelector('[data-act="back"]').addEventListener("click", function () {
      if (history.length) line.value = history.pop();
      showHand(); save();
    });
    mj.querySelector('[data-act="go"]').addEventListener("click", function () {
      var parts = [line.value.trim()], typed = sections();
      // what the line says itself (圈风東, 连2) stands; the controls fill in what it leaves out
      function said(prefixes) { return typed.some(function (x) { return prefixes.some(function (p) { return x.indexOf(p) === 0; }); }); }
      mj.querySelectorAll("[data-flag]").forEach(function (f) {
        var name = f.dataset.flag;
        if (name === "连") { if (Number(f.value) > 0 && !said(["连", "連"])) parts.push("连" + Math.floor(Number(f.value))); }
        else if (!said([name, name === "圈风" ? "圈風" : name])) parts.push(name + f.value);
      });
      sits.forEach(function (b) {
        if (b.getAttribute("aria-pressed") === "true" && typed.indexOf(b.dataset.sit) < 0) parts.push(b.dataset.sit);
      });
      // who deals, unless not chosen: then the settlement says what it took (the answer's first line)
      var how = mj.querySelector('[data-pay="how"]').value, dealer = mj.querySelector('[data-pay="dealer"]').value, body = {};
      if (dealer) body.dealer = dealer;
      if (how === "自摸") parts.push("自摸"); else body.discarder = how;
      // what was scored, restated above the answer in words: the tiles, how it was won with every
      // situation, who dealt (and so the winner's 门风), the round's wind and the streak
      var parsed = null;
      try { parsed = window.KbMahjong.parseLine(parts.join(" ")); } catch (e) { parsed = null; }
      var words = parts.join(" ").split(/\s+/);
      var named = sits.filter(function (b) { return words.indexOf(b.dataset.sit) >= 0; }).map(function (b) { return b.textContent; });
      var text = function (sel) { var c = mj.querySelector(sel); return c.tagName === "SELECT" ? c.selectedOptions[0].textContent : c.value; };
      var used = (parsed ? handText(parsed) + "；" : "") + [text('[data-pay="how"]')].concat(named).join("、") + "；" +
                 msgs.dealer + " " + text('[data-pay="dealer"]') + "，" + msgs.seat + " " + seat.textContent + "；" +
                 // the round's wind and the streak as scored: what the line says stands over the controls
                 msgs.round + " " + (parsed && parsed.round_wind ? window.KbMahjong.tileName(parsed.round_wind) : text('[data-flag="圈风"]')) +
                 "；" + msgs.streak + " " + (parsed ? String(parsed.dealer_streak || 0) : text('[data-flag="连"]'));
      body.hand = parts.join(" ");
      out.textContent = "…";
      function here() {
        var data = engine.settleBody(body);
        return {ok: !data.error, data: data};
      }
      (served ? post(mj.dataset.api, body).catch(here) : Promise.resolve().then(here)).then(function (r) {
        out.textContent = "";
        if (!r.ok) {
          out.appendChild(el("p", "kb-used", msgs.used + "：" + used));
          out.appendChild(el("p", "kb-error", msgs.error + "：" + chinese(r.data.error)));
          return;
        }
        var d = r.data.score, table = el("table", "kb-items");
        out.appendChild(el("p", "kb-used", msgs.used + "：" + used));
        (r.data.assumed || []).forEach(function (t) { out.appendChild(el("p", "kb-assumed", t)); });
        out.appendChild(el("p", "", msgs.form + "：" + d.form));
        d.items.forEach(function (i) {
          var tr = el("tr");
          tr.appendChild(el("td", "", i.name));
          tr.appendChild(el("td", "kb-num", i.tai + "台"));
          var td = el("td"); td.appendChild(clauseLink(hrefs, i.clause)); tr.appendChild(td);
          tr.appendChild(el("td", "kb-detail", i.detail || ""));
          table.appendChild(tr);
        });
        out.appendChild(table);
        if (d.excluded.length) {
          // one line per kind (大三元 drops three 箭字坎: 箭字坎 ×3)
          var p = el("p", "kb-excluded", msgs.excluded + "："), seen = [];
          d.excluded.forEach(function (e) {
            var same = seen.filter(function (x) { return x.e.name === e.name && x.e.why === e.why && x.e.clause === e.clause; })[0];
            if (same) same.n += 1; else seen.push({e: e, n: 1});
          });
          seen.forEach(function (x, i) {
            if (i) p.appendChild(document.createTextNode("；"));
            p.appendChild(document.createTextNode(x.e.name + (x.n > 1 ? " ×" + x.n : "") + "（" + x.e.why + "）"));
            p.appendChild(clauseLink(hrefs, x.e.clause));
          });
          out.appendChild(p);
        }
        // what a payer pays when it is not the total (the dealer's 作庄 and 连庄 when another wins)
        var total = el("p", "kb-total", msgs.total + "：" + d.total + "台");
        var differ = r.data.payments.filter(function (x) { return x.tai !== d.total; });
        if (differ.length) {
          total.appendChild(document.createTextNode("；" + differ.map(function (x) { return x.payer + msgs.pays + " " + x.tai + "台"; })
            .join("、") + "（" + msgs.seePay + "）"));
        }
        out.appendChild(total);
        var pay = el("div", "kb-pay");
        pay.appendChild(el("p", "kb-pay-head", msgs.pay));
        var ul = el("ul");
        r.data.payments.forEach(function (x) { ul.appendChild(el("li", "", x.payer + "：1底 " + x.tai + "台（" + x.detail + "）")); });
        pay.appendChild(ul);
        var basis = el("p", "kb-basis", msgs.basis + "：");
        r.data.clauses.forEach(function (c) { basis.appendChild(clauseLink(hrefs, c)); });
        pay.appendChild(basis);
        var det = el("details", "kb-silent"), sum = el("summary", "", msgs.silent);
        det.appendChild(sum);
        r.data.silent.forEach(function (t) { det.appendChild(linked(t)); });
        pay.appendChild(det);
        out.appendChild(pay);
      }).then(function () {
        save(true);
        // the answer, not the keypad, is what the reader looks at now
        if (out.scrollIntoView) out.scrollIntoView({ block: "start", behavior: "smooth" });
      });
    });
    var rescore = restore();
    showSeat(); showSits(); showHand();
    if (rescore) mj.querySelector('[data-act="go"]').click();
  }

  var br = document.getElementById("kb-br");
  if (br) {
    var bh = JSON.parse(br.dataset.hrefs), bm = JSON.parse(br.dataset.msgs), worked = JSON.parse(br.dataset.worked);
    var q = document.getElementById("kb-br-q"), input = document.getElementById("kb-br-in"), bout = br.querySelector(".kb-out");
    var list = br.querySelector(".kb-worked");
    // JSON with its keys sorted: an input typed in another key order is still the worked example
    function canon(v) {
      if (Array.isArray(v)) return "[" + v.map(canon).join(",") + "]";
      if (v && typeof v === "object") return "{" + Object.keys(v).sort().map(function (k) { return JSON.stringify(k) + ":" + canon(v[k]); }).join(",") + "}";
      return JSON.stringify(v);
    }
    function show(r) {
      bout.textContent = "";
      // a worked example's situation (the API's answer restates its own input)
      if (r.situation) bout.appendChild(suited("p", "kb-situation", bm.situation + "：" + r.situation));
      bout.appendChild(suited("p", "kb-explanation", r.explanation));
      var p = el("p", "kb-basis", bm.basis + "：");
      r.clauses.forEach(function (c) { p.appendChild(clauseLink(bh, c)); p.appendChild(document.createTextNode(" ")); });
      bout.appendChild(p);
    }
    // the form: one control per field of the question (its ruling's declaration, kb/rules/bridge: kind, words,
    // choices), kept in step with the JSON box, which is what is sent
    var forms = JSON.parse(br.dataset.form), box = br.querySelector(".kb-br-form"), controls = [];
    var LISTS = {cards: 1, suits: 1, ints: 1};
    function select(options) {
      var c = el("select", "kb-select");
      options.forEach(function (o) { var op = el("option", "", o[1]); op.value = o[0]; c.appendChild(op); });
      return c;
    }
    // what happened after a revoke: a row per event (seat, action, trick), added one by one
    function eventsControl(f) {
      var c = el("div", "kb-br-events"), rows = el("div"), add = el("button", "md-button kb-br-add", "＋ " + bm.addEvent);
      add.type = "button";
      c.appendChild(rows);
      c.appendChild(add);
      c.id = "kb-br-f-" + f.name;
      function row(ev) {
        var r = el("div", "kb-br-event"), seat = select(f.seats), act = select(f.actions), trick = el("input", "kb-line");
        var del = el("button", "md-button kb-br-del", "×");
        trick.type = "text"; trick.inputMode = "numeric"; trick.placeholder = bm.trick; trick.setAttribute("aria-label", bm.trick);
        seat.setAttribute("aria-label", bm.seat); act.setAttribute("aria-label", bm.action);
        del.type = "button"; del.setAttribute("aria-label", bm.remove);
        function onTrick() { trick.hidden = f.trick_actions.indexOf(act.value) < 0; }
        act.addEventListener("change", onTrick);
        del.addEventListener("click", function () { rows.removeChild(r); fromForm(); });
        if (ev) { seat.value = ev.seat || ""; act.value = ev.action || ""; trick.value = ev.trick === undefined ? "" : String(ev.trick); }
        onTrick();
        [seat, act, trick, del].forEach(function (x) { r.appendChild(x); });
        rows.appendChild(r);
        return r;
      }
      add.addEventListener("click", function () { var r = row(); fromForm(); r.querySelector("select").focus(); });
      c.fill = function (v) { rows.textContent = ""; (Array.isArray(v) ? v : []).forEach(function (ev) { row(ev); }); };
      c.read = function () {
        return [].map.call(rows.children, function (r) {
          var parts = r.querySelectorAll("select, input"), ev = {seat: parts[0].value, action: parts[1].value};
          var t = parts[2].value.replace(/^第|墩$/g, "").trim();
          if (!parts[2].hidden && t) ev.trick = /^\d+$/.test(t) ? Number(t) : t;
          return ev;
        });
      };
      return c;
    }
    function control(f) {
      var c;
      if (f.kind === "events") return eventsControl(f);
      if (f.choices || (f.kind === "bool" && f.default === null)) {
        var opts = f.choices ? f.choices.slice() : [["true", bm.yes], ["false", bm.no]];
        // a field that may be left out, or a required one not yet chosen, starts blank
        if (!opts.some(function (o) { return o[0] === ""; })) opts.unshift(["", f.optional ? bm.unset : bm.choose]);
        c = select(opts);
      } else if (f.kind === "bool") {
        c = el("input");
        c.type = "checkbox";
      } else {
        c = el("input", "kb-line");
        c.type = "text";
        if (f.kind === "int") c.inputMode = "numeric";
        c.autocomplete = "off";
        c.spellcheck = false;
      }
      c.id = "kb-br-f-" + f.name;
      return c;
    }
    function buildForm() {
      box.textContent = "";
      controls = (forms[q.value] || []).map(function (f) {
        var c = control(f), row = el("div", "kb-br-field" + (f.kind === "bool" && c.type === "checkbox" ? " kb-br-flag" : ""));
        // a box to tick always says yes or no: "may be left out" is for the lists and text boxes
        var lab = el("label", "kb-line-label", f.label + (f.optional && c.type !== "checkbox" ? "（" + bm.optional + "）" : ""));
        if (!c.fill) lab.htmlFor = c.id;
        if (c.type === "checkbox") { row.appendChild(c); row.appendChild(lab); } else { row.appendChild(lab); row.appendChild(c); }
        if (f.hint && c.type !== "checkbox") row.appendChild(suited("p", "kb-detail", f.hint));
        box.appendChild(row);
        return {f: f, c: c};
      });
    }
    function shown(f, v) {          // a JSON value as its control shows it
      if (v === undefined || v === null) return f.kind === "bool" && f.default !== null ? f.default === true : "";
      if (f.kind === "bool") return f.default === null ? String(v) : v === true;
      if (LISTS[f.kind] && Array.isArray(v)) return v.join(" ");
      return String(v);
    }
    function fillForm(data) {
      controls.forEach(function (x) {
        if (x.c.fill) { x.c.fill(data[x.f.name]); return; }
        var v = shown(x.f, data[x.f.name]);
        if (x.c.type === "checkbox") x.c.checked = v; else x.c.value = v;
      });
    }
    function valueOf(x) {           // the control's JSON value; undefined leaves the field out
      var f = x.f;
      if (x.c.read) { var evs = x.c.read(); return evs.length || !f.optional ? evs : undefined; }
      if (x.c.type === "checkbox") return (x.c.checked === (f.default === true) && f.optional) ? undefined : x.c.checked;
      var t = x.c.value.trim();
      // left empty: a required list is an empty one, a required led suit is null (he leads)
      if (t === "") return f.optional ? undefined : f.kind === "led" ? null : LISTS[f.kind] ? [] : undefined;
      if (f.kind === "bool") return t === "true";
      // a trick's number as said (第4墩), declarer's words in quotes (“大”)
      function number(w) { var n = w.replace(/^第|墩$/g, ""); return /^\d+$/.test(n) ? Number(n) : w; }
      if (f.kind === "int") return number(t);
      if (f.kind === "word") return t.replace(/^["“”'‘’「」]+|["“”'‘’「」]+$/g, "");
      if (LISTS[f.kind]) return t.split(/[\s,，、]+/).filter(Boolean).map(function (w) {
        return f.kind === "ints" ? number(w) : f.kind === "suits" ? w.toUpperCase() : w;
      });
      return t;
    }
    function fromForm() {
      var data = {};
      controls.forEach(function (x) { var v = valueOf(x); if (v !== undefined) data[x.f.name] = v; });
      input.value = JSON.stringify(data, null, 1);
    }
    box.addEventListener("input", fromForm);
    box.addEventListener("change", fromForm);
    // JSON typed into the box goes into the form as well
    input.addEventListener("change", function () { try { fillForm(JSON.parse(input.value) || {}); } catch (e) { /* told on 裁定 */ } });
    function load(ex) { input.value = JSON.stringify(ex.input, null, 1); fillForm(ex.input); }
    // an error names a JSON field ("card: 无法识别的牌 …"): the form's reader knows it by its words
    function worded(message) {
      var m = /^(?:input\.|body\.)?([a-z_]+)(?:\[\d+\])?(?:\.[a-z_]+)*:\s*/.exec(message);
      var f = m && (forms[q.value] || []).filter(function (x) { return x.name === m[1]; })[0];
      return f ? f.label + "：" + message.slice(m[0].length) : message;
    }
    // what each field of this question's JSON means and how it is written
    var guide = br.querySelector(".kb-fields dl");
    function showFields() {
      guide.textContent = "";
      (forms[q.value] || []).forEach(function (f) {
        guide.appendChild(el("dt", "", (f.optional ? "[" + f.name + "]" : f.name) + "　" + f.label));
        var what = f.json || f.choices.map(function (o) { return (o[0] === "" ? "null" : o[0]) + "（" + o[1] + "）"; }).join("、");
        guide.appendChild(suited("dd", "", what));
      });
    }
    // the question's worked examples: a tap loads one and shows its answer
    function fill() {
      var exs = worked[q.value] || [];
      buildForm();
      showFields();
      list.textContent = "";
      exs.forEach(function (ex) {
        var li = el("li"), b = suited("button", "kb-worked-case", ex.title);
        b.type = "button";
        b.addEventListener("click", function () {
          load(ex); show(ex);
          list.querySelectorAll(".kb-worked-case").forEach(function (x) { x.setAttribute("aria-pressed", String(x === b)); });
          // the answer sits above the list: bring it (and the input it answers, under kb serve) into view
          var top = served ? input : bout;
          if (top.scrollIntoView) top.scrollIntoView({ block: "start", behavior: "smooth" });
        });
        li.appendChild(b);
        list.appendChild(li);
      });
      // under kb serve the form starts empty (a worked example's facts left in it would change the
      // ruling unseen); a tap on one below fills it
      if (exs.length && !served) load(exs[0]); else { input.value = "{}"; fillForm({}); }
      if (served) bout.textContent = ""; else offline(bout, bm);
    }
    q.addEventListener("change", fill);
    // without the API an edited input cannot be ruled on: the JSON box is for kb serve only
    br.querySelector(".kb-br-input").hidden = !served;
    fill();
    function here(body) {
      var key = canon(body), hit = (worked[q.value] || []).filter(function (ex) { return canon(ex.input) === key; })[0];
      if (hit) show(hit); else { bout.textContent = ""; bout.appendChild(el("p", "kb-offline", bm.unknown)); }
    }
    br.querySelector('[data-act="go"]').addEventListener("click", function () {
      var body;
      try { body = JSON.parse(input.value); } catch (e) { bout.textContent = ""; bout.appendChild(el("p", "kb-error", bm.error + "：JSON")); return; }
      if (!served) { here(body); return; }
      bout.textContent = "…";
      post(br.dataset.api + q.value + "?script=" + br.dataset.script, body).then(function (r) {
        if (!r.ok) { bout.textContent = ""; bout.appendChild(el("p", "kb-error", bm.error + "：" + worded(r.data.error))); }
        else show(r.data);
        // the answer, below the form, is what the reader looks at now
        if (bout.scrollIntoView) bout.scrollIntoView({ block: "start", behavior: "smooth" });
      }).catch(function () { here(body); });
    });
  }
})();

// The site's own search engine: kb/search's query analysis and ranking (parse.py, rank.py,
// engine.py) over the static index that `kb build` writes (kb/site/static_search.py). Runs in
// the page (also from file://) and in node (bench/static_search_bench.py). No DOM here:
// KbEngine.open(metaPath, load) takes a loader that returns a Promise of a chunk's data given
// its path relative to the edition root. engine.search(q, opts) gives the results;
// engine.answer(q, opts) the answer the API gives, {results, not_held} (what no book holds:
// kb/search/outside.py, its table in meta.outside; a citation by the 2017 numbers: kb/search/inforce.py,
// its map in meta.codeMap, its notes in meta.codeNotes).
//
// Every step is synchronous over the chunks loaded so far; a look-up in a chunk not yet
// loaded (a lexicon shard, a postings shard, a display block) records the chunk and answers
// "nothing". A search runs its steps, loads what was missing, and runs again until nothing
// was: the last run saw every chunk it read, so it computes what the server computes.
(function (global) {
  "use strict";

  function isCJK(code) {
    return (code >= 0x4E00 && code <= 0x9FFF) || (code >= 0x3400 && code <= 0x4DBF) ||
      (code >= 0xF900 && code <= 0xFAFF) || (code >= 0xD840 && code <= 0xD87E);
  }
  // parse.py unquoted: the quotation marks taken out, one between two Chinese characters
  // dropped, any other a space
  function unquoted(q, quotes) {
    var chars = Array.from(q), out = [];
    function cjk(c) { return c !== undefined && isCJK(c.charCodeAt(0)); }
    chars.forEach(function (ch, i) {
      if (quotes.indexOf(ch) < 0) { out.push(ch); return; }
      var b = i - 1, a = i + 1;
      while (b >= 0 && quotes.indexOf(chars[b]) >= 0) b--;
      while (a < chars.length && quotes.indexOf(chars[a]) >= 0) a++;
      out.push(cjk(chars[b]) && cjk(chars[a]) ? "" : " ");
    });
    return out.join("");
  }
  var ALNUM = /[\p{L}\p{N}]/u;
  var SPACE = /\s+/;
  var CONTROLS = /\p{C}/gu;  // strip_controls: every control, format, surrogate, private-use, unassigned

  function termHash(term) {
    var h = 0x811C9DC5;
    for (var i = 0; i < term.length; i++) {
      h ^= term.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h >>> 0;
  }
  function words1(text) { return text.split(SPACE).filter(Boolean); }
  function reEscape(s) { return s.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&"); }
  function isAscii(s) { return /^[\x00-\x7f]*$/.test(s); }
  function uniq(list) { return Array.from(new Set(list)); }
  function MissingChunk() {}
  var RESTORED = /〔([^〔〕]*?)？?〕/g;   // analysis.py RESTORED_RE: an editor's restoration, searched without brackets

  function Engine(meta, load) {
    var self = this;
    this.meta = meta;
    this.load = load;
    this.n = Math.max(1, meta.count);
    this.R = meta.ranking;
    this.wordFields = Object.keys(this.R.wordFields);   // in the order of a posting's counts
    this.slot = {};   // a word field's place in a posting's counts
    this.wordFields.forEach(function (f, i) { self.slot[f] = i; });
    this.Q = meta.query;
    this.fold = {};
    var from = Array.from(meta.fold[0]), to = Array.from(meta.fold[1]);
    for (var i = 0; i < from.length; i++) this.fold[from[i]] = to[i];
    this.stop = new Set(this.Q.stopwords);
    this.negators = new Set(Array.from(this.Q.negators));
    this.domain = new Set(meta.lexicon.domain);
    this.logTotal = Math.log(Math.max(1, meta.lexicon.total));
    this.byId = {};
    meta.ids.forEach(function (id, n) { self.byId[id] = n; });
    this.twin = {};   // a record's twin in the other translation (the records' twin, kb/ingest/twins.py)
    meta.twin.forEach(function (m, n) { if (m >= 0) self.twin[n] = m; });
    this.headings = new Set(meta.headings);   // bare headings: no text of their own, clauses under them
    var present = new Set(meta.work);
    this.works = meta.works.filter(function (w, i) { return present.has(i); });
    this.cites = meta.citations.patterns.map(function (p) { return { kind: p[0], re: new RegExp(p[1], p[2] + "g") }; });
    this.phraseRe = new RegExp(this.Q.phrase[0], this.Q.phrase[1] + "g");
    this.countedRe = new RegExp(this.Q.counted[0], this.Q.counted[1] + "g");
    this.boardRe = new RegExp(this.Q.board[0], this.Q.board[1] + "g");
    this.definitionRes = this.Q.definition.map(function (p) { return new RegExp(p[0], p[1]); });
    this.codeExact = {};   // inforce.CodeMap: a 2017 citation's pathkey -> the records naming it, in book order
    (meta.codeMap || []).forEach(function (e) { self.codeExact[e[0]] = e[1]; });
    this.chunks = {};      // chunk name -> data, once loaded
    this.loading = {};     // chunk name -> Promise
  }

  // --- chunks -------------------------------------------------------------------------------
  Engine.prototype.chunk = function (name) {
    var data = this.chunks[name];
    if (data === undefined) { this.pass.missing.add(name); return null; }
    return data;
  };
  Engine.prototype.fetch = function (names) {
    var self = this;
    return Promise.all(names.map(function (name) {
      if (!self.loading[name]) {
        self.loading[name] = self.load(self.meta.files[name]).then(function (data) { self.chunks[name] = data; });
        self.loading[name].catch(function () { delete self.loading[name]; });
      }
      return self.loading[name];
    }));
  };
  // Run fn (synchronous, over loaded chunks) until it needed no chunk that was not loaded.
  Engine.prototype.complete = function (fn, preload) {
    var self = this;
    function attempt() {
      self.pass = { missing: new Set(), analysis: new Map(), bm25: new Map(), contained: new Map(),
                    groupDocs: new Map(), wordDocs: new Map(), contextDocs: new Map(),
                    titleDocs: new Map() };
      var out = fn();
      var missing = Array.from(self.pass.missing);
      self.pass = null;
      if (!missing.length) return Promise.resolve(out);
      return self.fetch(missing).then(attempt);
    }
    return this.fetch(preload || []).then(attempt);
  };

  // --- analysis (kb/search/analysis.py, lexicon.py) -------------------------------------------
  Engine.prototype.foldText = function (text) {
    var out = "";
    for (var i = 0; i < text.length; i++) {
      var f = this.fold[text[i]];
      out += f === undefined ? text[i] : f;
    }
    return out;
  };
  Engine.prototype.normalize = function (text) {
    var folded = this.foldText(text), out = "";
    for (var i = 0; i < folded.length; i++) {
      var l = folded[i].toLowerCase();
      out += l.length === 1 ? l : folded[i];
    }
    return out;
  };
  function runs(norm) {
    var out = [], i = 0, n = norm.length;
    while (i < n) {
      var code = norm.charCodeAt(i), j;
      if (isCJK(code)) {
        j = i + 1;
        while (j < n && isCJK(norm.charCodeAt(j))) j++;
        out.push([norm.slice(i, j), i, j, true]);
      } else if (ALNUM.test(norm[i])) {
        j = i + 1;
        while (j < n && ALNUM.test(norm[j]) && !isCJK(norm.charCodeAt(j))) j++;
        out.push([norm.slice(i, j), i, j, false]);
      } else { i++; continue; }
      i = j;
    }
    return out;
  }
  Engine.prototype.lexShard = function (ch) { return "l" + (termHash(ch) % this.meta.lexicon.shards); };
  // A word's frequency in the search lexicon (0 if it is not a word).
  Engine.prototype.freq = function (word) {
    if (!word) return 0;
    var shard = this.chunk(this.lexShard(word[0]));
    return (shard && shard[word]) || 0;
  };
  // jieba's maximum-probability route over the dictionary's DAG (Lexicon.cut_run).
  Engine.prototype.cutRun = function (run, without) {
    var n = run.length, maxlen = this.meta.lexicon.maxlen, logTotal = this.logTotal;
    var route = new Array(n + 1);
    route[n] = [0, 0];
    for (var i = n - 1; i >= 0; i--) {
      var best = null, f = this.freq(run[i]);
      if (f && run[i] !== without) best = [Math.log(f) - logTotal + route[i + 1][0], i];
      var top = Math.min(n, i + maxlen);
      for (var j = i + 2; j <= top; j++) {
        var w = run.slice(i, j), fw = this.freq(w);
        if (fw && (without === undefined || w !== without)) {
          var cand = [Math.log(fw) - logTotal + route[j][0], j - 1];
          if (best === null || cand[0] > best[0] || (cand[0] === best[0] && cand[1] > best[1])) best = cand;
        }
      }
      route[i] = best || [-logTotal + route[i + 1][0], i];
    }
    var out = [];
    for (var k = 0; k < n;) {
      var e = route[k][1] + 1;
      out.push(run.slice(k, e));
      k = e;
    }
    return out;
  };
  // An English word's stem (analysis.stem): plural, past, -ing, -ly and a final e fall away.
  Engine.prototype.stem = function (word) {
    var w = Object.prototype.hasOwnProperty.call(this.Q.irregular, word) ? this.Q.irregular[word] : word;
    if (w.length <= 3 || !/^[a-z]+$/i.test(w)) return w;
    var end = function (suf) { return w.slice(-suf.length) === suf; };
    if ((end("ies") || end("ied")) && w.length > 4) w = w.slice(0, -3) + "y";
    else if (end("ing") && w.length > 5) w = w.slice(0, -3);
    else if (end("ed") && w.length > 4) w = w.slice(0, -2);
    else if (end("es") && w.length > 4 && "sxzh".indexOf(w[w.length - 3]) >= 0) w = w.slice(0, -2);
    else if (end("s") && "su".indexOf(w[w.length - 2]) < 0) w = w.slice(0, -1);
    else if (end("ly") && w.length > 5) w = w.slice(0, -2);
    if (w.length > 3 && w[w.length - 1] === w[w.length - 2] && "lsz".indexOf(w[w.length - 1]) < 0) w = w.slice(0, -1);
    if (w.length > 3 && end("e")) w = w.slice(0, -1);
    return w;
  };
  // {words: [[word, start, end]], bigrams, unigrams} of a text (analysis.analyze).
  Engine.prototype.analyze = function (text) {
    var cache = this.pass.analysis, hit = cache.get(text);
    if (hit) return hit;
    var norm = this.normalize(text), words = [], bigrams = [], unigrams = [], self = this, NEG = this.Q.neg;
    runs(norm).forEach(function (r) {
      var run = r[0], s = r[1];
      if (!r[3]) { var st = self.stem(run); words.push([st, s, s + run.length]); bigrams.push(st); return; }
      var negated = new Array(run.length).fill(false), toks = self.cutRun(run), pos = 0, k = 0;
      while (k < toks.length) {
        var w = toks[k], start = pos;
        if (self.negators.has(w) && k + 1 < toks.length && !self.negators.has(toks[k + 1])) {
          var nxt = toks[k + 1];
          for (var i = pos + 1; i < pos + 1 + nxt.length; i++) negated[i] = true;
          w = w + nxt;
          k++;
        } else if (w.length >= 3 && self.negators.has(w[0]) && self.freq(w.slice(1))) {
          for (var i2 = pos + 1; i2 < pos + w.length; i2++) negated[i2] = true;
        }
        pos += w.length;
        words.push([w, s + start, s + pos]);
        k++;
      }
      for (var c = 0; c < run.length; c++) {
        unigrams.push(negated[c] ? NEG + run[c] : run[c]);
        if (c + 1 < run.length) {
          var bg = run.slice(c, c + 2);
          bigrams.push(negated[c] && negated[c + 1] ? NEG + bg : bg);
        }
      }
    });
    hit = { words: words, bigrams: bigrams, unigrams: unigrams };
    cache.set(text, hit);
    return hit;
  };
  Engine.prototype.wordsOf = function (text) { return this.analyze(text).words.map(function (w) { return w[0]; }); };
  Engine.prototype.generic = function (word) {
    return !this.domain.has(word) && (word.length < 2 || this.freq(word) >= this.meta.lexicon.generic);
  };

  // --- citations (kb/search/citations.py, the patterns exported by the build) ----------------
  Engine.prototype.chineseNumber = function (text) {
    var d = this.meta.citations.cnDigits, u = this.meta.citations.cnUnits;
    if (!text) return null;
    var total = 0, digit = null;
    for (var i = 0; i < text.length; i++) {
      var ch = text[i];
      if (ch in d) digit = digit !== null ? digit * 10 + d[ch] : d[ch];
      else if (ch in u) { total += (digit === null ? 1 : digit) * u[ch]; digit = null; }
      else return null;
    }
    return total + (digit || 0);
  };
  Engine.prototype.citeFrom = function (kind, g) {
    var c = this.meta.citations, raw = g.num;
    var num = /^[0-9]+$/.test(raw) ? parseInt(raw, 10) : this.chineseNumber(raw);
    if (num === null) return null;
    if (kind === "mj") {
      if (num < 1 || num > c.maxPattern) return null;
      return { law: null, path: ["patterns", String(num)], work: c.mahjongWork };
    }
    if (kind === "zh" && !g.di && !g.clause && num < c.minBareLaw) return null;
    if (num < 1 || num > c.maxLaw) return null;
    var path = [String(num)];
    if (g.clause) {
      path.push(g.clause.toUpperCase());
      if (g.item) {
        path.push(String(parseInt(g.item, 10)));
        var sub = g.sub || g.sub2 || g.sub3;
        if (sub) path.push(sub.toLowerCase());
      }
    }
    return { law: num, path: path, work: null };
  };
  // [citations, rest of the query]; spans index the query (folding keeps the length).
  Engine.prototype.splitCitations = function (q) {
    var text = this.foldText(q), taken = new Array(text.length).fill(false), found = [], self = this;
    this.cites.forEach(function (p) {
      p.re.lastIndex = 0;
      var m;
      while ((m = p.re.exec(text)) !== null) {
        if (m[0].length === 0) { p.re.lastIndex++; continue; }
        var s = m.index, e = s + m[0].length, busy = false;
        for (var i = s; i < e; i++) if (taken[i]) { busy = true; break; }
        if (busy) continue;
        var c = self.citeFrom(p.kind, m.groups || {});
        if (!c) continue;
        while (e > s && /\s/.test(text[e - 1])) e--;
        while (s < e && (/\s/.test(text[s]) || self.meta.citations.leading.indexOf(text[s]) >= 0)) s++;
        c.start = s; c.end = e; c.text = q.slice(s, e);
        found.push(c);
        for (var k = s; k < e; k++) taken[k] = true;
      }
    });
    found.sort(function (a, b) { return a.start - b.start; });
    var rest = "";
    for (var i = 0; i < q.length; i++) rest += taken[i] ? " " : q[i];
    return [found, words1(rest).join(" ")];
  };
  // citations.py split_work: [the one book the query names or null, the query with every name blanked]
  Engine.prototype.splitWork = function (q) {
    var c = this.meta.citations;
    if (!c.booksRe) return [null, q];
    var re = new RegExp(c.booksRe[0], c.booksRe[1] + "g"), text = this.foldText(q), found = new Set(), out = q.split(""), m;
    while ((m = re.exec(text)) !== null) {
      if (m[0].length === 0) { re.lastIndex++; continue; }
      found.add(c.books[m[0].replace(/\s+/g, "").toLowerCase()]);
      for (var i = m.index; i < m.index + m[0].length; i++) out[i] = " ";
    }
    if (!found.size) return [null, q];
    return [found.size === 1 ? Array.from(found)[0] : null, out.join("")];
  };
  // citations.py split_codes: [the citations by the 2017 numbers, the spans of attempts at one that
  // are none, the query with both and their markers blanked out] (the query itself without a marker)
  Engine.prototype.splitCodes = function (q) {
    var c = this.meta.citations, text = this.foldText(q), marks = [], m;
    var re = new RegExp(c.codeMark[0], c.codeMark[1] + "g");
    while ((m = re.exec(text)) !== null) {
      if (m[0].length === 0) { re.lastIndex++; continue; }
      marks.push([m.index, m.index + m[0].length]);
    }
    if (!marks.length) return [[], [], q];
    var blanked = q.split("");
    marks.forEach(function (mk) { for (var i = mk[0]; i < mk[1]; i++) blanked[i] = " "; });
    var cites = this.splitCitations(blanked.join(""))[0], codes = [], attempts = [], out = q.split(""), used = new Set();
    var gap = new RegExp("^(?:" + c.codeGap[0] + ")$", c.codeGap[1]);
    function at(p, pos) { var r = new RegExp(p[0], p[1] + "y"); r.lastIndex = pos; return r.exec(text); }
    function blank(a, b) { for (var i = a; i < b; i++) out[i] = " "; }
    marks.forEach(function (mk) {
      var a = mk[0], b = mk[1], k = -1, i;
      for (i = 0; i < cites.length && k < 0; i++) {
        if (!used.has(i) && cites[i].start >= b && gap.test(text.slice(b, cites[i].start))) k = i;
      }
      if (k < 0 && at(c.codeAttempt, b) === null) {   // Law 27B1(b) 2017: the citation before it
        for (i = 0; i < cites.length && k < 0; i++) {
          if (!used.has(i) && cites[i].end <= a && gap.test(text.slice(cites[i].end, a))) k = i;
        }
      }
      if (k >= 0) {
        used.add(k);
        var x = cites[k];
        codes.push({ law: x.law, path: x.path, start: x.start, end: x.end, text: x.text, work: null });
        blank(a, b); blank(x.start, x.end);
        return;
      }
      var law = at(c.codeLaw, b), num = law ? parseInt(law.groups.num, 10) : 0;
      if (law && num >= 1 && num <= c.maxLaw) {   // 2017版9条, 2017 27 2017 64
        var start = law.index + law[0].search(/[0-9]/), end = law.index + law[0].length;
        codes.push({ law: num, path: [String(num)], start: start, end: end, text: q.slice(start, end), work: null });
        blank(a, end);
        return;
      }
      var attempt = at(c.codeAttempt, b);
      if (attempt) {
        attempts.push([a, attempt.index + attempt[0].length]);
        blank(a, attempt.index + attempt[0].length);
      }
    });
    codes.sort(function (x, y) { return x.start - y.start; });
    return [codes, attempts, out.join("")];
  };
  function suffix(c) { return c.law === null ? c.path.join(".") : c.path.join(""); }
  function pathkey(path) { return path.map(function (p) { return p + "/"; }).join(""); }

  // --- postings and BM25 (kb/search/rank.py) ------------------------------------------------------
  // [[doc, tf], ...] of a term in a field: words of a word field (title, text, ...), bigram, unigram.
  Engine.prototype.posting = function (field, term) {
    var kind = field === "bigram" ? "b" : field === "unigram" ? "u" : "w";
    var shard = this.chunk("p" + (termHash(kind + ":" + term) % this.meta.shards));
    var flat = shard && shard[kind][term], out = [];
    if (!flat) return out;
    var width = kind === "w" ? this.wordFields.length : 1, slot = kind === "w" ? this.slot[field] : 0, doc = 0;
    for (var i = 0; i < flat.length; i += width + 1) {
      doc += flat[i];
      var tf = flat[i + 1 + slot];
      if (tf) out.push([doc, tf]);
    }
    return out;
  };
  Engine.prototype.bm25 = function (field, term) {
    var key = field + "\u0000" + term, hit = this.pass.bm25.get(key);
    if (hit) return hit;
    var rows = this.posting(field, term), out = new Map();
    if (rows.length) {
      var R = this.R, n = this.n, idf = Math.log(1.0 + (n - rows.length + 0.5) / (rows.length + 0.5));
      var dl = this.meta.lengths[field], avg = this.meta.avg[field];
      rows.forEach(function (r) {
        var tf = r[1];
        out.set(r[0], idf * tf * (R.k1 + 1) / (tf + R.k1 * (1 - R.b + R.b * dl[r[0]] / avg)));
      });
    }
    this.pass.bm25.set(key, out);
    return out;
  };
  function add(map, d, v) { map.set(d, (map.get(d) || 0) + v); }
  Engine.prototype.gramsOf = function (s) {
    var a = this.analyze(s);
    return a.bigrams.length ? ["bigram", a.bigrams] : ["unigram", a.unigrams];
  };
  // Records whose title or text holds every gram of s.
  Engine.prototype.contained = function (s) {
    var hit = this.pass.contained.get(s);
    if (hit) return hit;
    var g = this.gramsOf(s), self = this, out = new Set();
    if (g[1].length) {
      var sets = uniq(g[1]).map(function (t) { return self.posting(g[0], t); });
      sets.sort(function (a, b) { return a.length - b.length; });
      sets[0].forEach(function (r) { out.add(r[0]); });
      for (var i = 1; i < sets.length && out.size; i++) {
        var has = new Set(sets[i].map(function (r) { return r[0]; }));
        out.forEach(function (d) { if (!has.has(d)) out.delete(d); });
      }
    }
    this.pass.contained.set(s, out);
    return out;
  };
  Engine.prototype.known = function (s) {
    if (this.contained(s).size) return true;
    for (var i = 0; i < this.wordFields.length; i++) if (this.posting(this.wordFields[i], s).length) return true;
    return (s.indexOf(" ") >= 0 || /^[\x00-\x7f]+$/.test(s)) && this.wordScores(s).size > 0;
  };
  // rank.word_scores: the English phrases' field only if ``english`` (a word typed in English)
  Engine.prototype.wordScores = function (s, english) {
    var words = uniq(this.wordsOf(s)), acc = new Map(), have = new Map(), self = this;
    if (!words.length) return acc;
    var fields = this.R.wordFields, skip = english === false ? this.R.englishField : null;
    words.forEach(function (w) {
      var seen = new Set();
      Object.keys(fields).forEach(function (f) {
        if (f === skip) return;
        self.bm25(f, w).forEach(function (sc, d) { add(acc, d, fields[f] * sc); seen.add(d); });
      });
      seen.forEach(function (d) { add(have, d, 1); });
    });
    var out = new Map();
    acc.forEach(function (sc, d) { if (have.get(d) === words.length) out.set(d, sc); });
    return out;
  };
  Engine.prototype.gramScores = function (s) {
    var g = this.gramsOf(s), acc = new Map(), self = this;
    g[1].forEach(function (t) { self.bm25(g[0], t).forEach(function (sc, d) { add(acc, d, sc); }); });
    return acc;
  };
  Engine.prototype.groupScores = function (g) {
    var best = new Map(), self = this, GW = this.R.gramWeight, english = isAscii(g.label);
    g.alts.forEach(function (alt) {
      var per = new Map();
      self.wordScores(alt[0], english).forEach(function (sc, d) { add(per, d, sc); });
      if (GW) self.gramScores(alt[0]).forEach(function (sc, d) { add(per, d, GW * sc); });
      per.forEach(function (sc, d) {
        sc *= alt[1];
        if (sc > (best.get(d) || 0)) best.set(d, sc);
      });
    });
    return best;
  };
  function strings(g) { return g.alts.map(function (a) { return a[0]; }); }
  // rank.py group_docs: a word typed in English is held by a clause's English phrases too.
  Engine.prototype.groupDocs = function (g) {
    var english = isAscii(g.label), key = (english ? "e" : "") + "\u0001" + strings(g).join("\u0000");
    var hit = this.pass.groupDocs.get(key), self = this;
    if (hit) return hit;
    var out = new Set();
    strings(g).forEach(function (s) {
      self.contained(s).forEach(function (d) { out.add(d); });
      if (english && isAscii(s)) self.englishDocs(s).forEach(function (d) { out.add(d); });
    });
    this.pass.groupDocs.set(key, out);
    return out;
  };
  // rank.py english_docs: records whose English phrases hold every word of ``s``.
  Engine.prototype.englishDocs = function (s) { return this.stringDocs(s, [this.R.englishField]); };
  // rank.py title_docs: records whose own title holds one of the group's strings.
  Engine.prototype.titleDocs = function (g) {
    var key = strings(g).join("\u0000"), hit = this.pass.titleDocs.get(key), self = this;
    if (hit) return hit;
    var out = new Set(), titles = this.meta.titles;
    strings(g).forEach(function (s) {
      if (s) self.contained(s).forEach(function (d) { if (titles[d].indexOf(s) >= 0) out.add(d); });
    });
    this.pass.titleDocs.set(key, out);
    return out;
  };
  // Records holding every word of ``s`` in the given word fields (each word in any of them).
  Engine.prototype.stringDocs = function (s, fields) {
    var self = this, words = this.wordsOf(s), out = new Set();
    if (!words.length) return out;
    var sets = words.map(function (w) {
      var set = new Set();
      fields.forEach(function (f) { self.posting(f, w).forEach(function (r) { set.add(r[0]); }); });
      return set;
    });
    sets[0].forEach(function (d) { if (sets.every(function (set) { return set.has(d); })) out.add(d); });
    return out;
  };
  // Records holding every word of one of the group's strings, in the given word fields.
  Engine.prototype.docsWithWords = function (g, cache, fields) {
    var key = strings(g).join("\u0000"), hit = this.pass[cache].get(key), self = this;
    if (hit) return hit;
    var out = new Set();
    strings(g).forEach(function (s) { self.stringDocs(s, fields).forEach(function (d) { out.add(d); }); });
    this.pass[cache].set(key, out);
    return out;
  };
  Engine.prototype.wordDocs = function (g) { return this.docsWithWords(g, "wordDocs", this.wordFields); };
  // Records an ancestor's title of which holds one of the group's strings as words (rank.py context_docs).
  Engine.prototype.contextDocs = function (g) { return this.docsWithWords(g, "contextDocs", ["context"]); };
  Engine.prototype.rarity = function (g) { return Math.log(1.0 + this.n / (1.0 + this.groupDocs(g).size)); };
  Engine.prototype.queryFamily = function (groups) {
    var votes = new Map(), self = this, R = this.R, fam = this.meta.family;
    groups.forEach(function (g) {
      if (self.generic(g.label) && !isAscii(g.label)) return;
      var docs = self.wordDocs(g);
      if (!docs.size) return;
      var count = new Map();
      Array.from(docs).sort(function (a, b) { return a - b; }).forEach(function (d) { add(count, fam[d], 1); });
      var top = null, n = -1;
      count.forEach(function (c, f) { if (c > n) { top = f; n = c; } });
      if (n >= R.domainShare * docs.size) add(votes, top, self.rarity(g));
    });
    if (!votes.size) return null;
    var ranked = Array.from(votes.entries()).sort(function (a, b) { return b[1] - a[1]; });
    if (ranked.length === 1 || ranked[0][1] >= 2 * ranked[1][1]) return ranked[0][0];
    return null;
  };
  // Ranker.rank: [[doc, score], ...] best first.
  Engine.prototype.rankGroups = function (groups, allowed, text, depth, family) {
    var R = this.R, self = this;
    var required = groups.filter(function (g) { return g.required; });
    var optional = groups.filter(function (g) { return !g.required; });
    var scores = new Map();
    groups.forEach(function (g) { self.groupScores(g).forEach(function (sc, d) { add(scores, d, sc); }); });
    if (text && R.queryGramWeight && optional.length) {
      this.gramScores(text).forEach(function (sc, d) {
        if (scores.has(d) || optional.length > 1) add(scores, d, R.queryGramWeight * sc);
      });
    }
    if (allowed) scores.forEach(function (_, d) { if (!allowed(d)) scores.delete(d); });
    required.forEach(function (g) {   // a quoted phrase stands as typed in the title, the text or a subject term
      var phrases = strings(g);
      scores.forEach(function (_, d) {
        var t = self.phraseText(d);
        if (t === null || !phrases.some(function (p) { return t.indexOf(p) >= 0; })) scores.delete(d);
      });
    });
    if (!scores.size) return [];
    var named = family !== null;   // rank.py: the family the query names (parse's family, or null)
    var fam = named ? family : this.queryFamily(optional);
    if (fam !== null) {
      var penalty = named ? R.namedPenalty : R.domainPenalty;
      scores.forEach(function (sc, d) { if (self.meta.family[d] !== fam) scores.set(d, sc * penalty); });
    }
    var all = Array.from(scores.entries());
    var covers = optional.map(function (g) {
      var c = self.groupDocs(g);
      if (!R.unitEvidence) return c;
      var out = new Set(c);
      c.forEach(function (d) { if (d in self.twin) out.add(self.twin[d]); });
      return out;
    });
    // a group weighs in the coverage if some matched clause holds it
    var weights = optional.map(function (g, i) {
      return all.some(function (e) { return covers[i].has(e[0]); }) ? g.weight * self.rarity(g) : 0.0;
    });
    if (R.titleBonus !== 1.0) {
      // rank.py: a record titled with every group the query matched is what the query names
      // (everyday words aside: 有 in 有限制的权利 does not make it the record 明手有什么权利 names)
      var titled = optional.filter(function (g, i) { return weights[i] && g.weight > self.meta.query.generic; })
        .map(function (g) { return self.titleDocs(g); });
      if (titled.length) {
        all.forEach(function (e) {
          if (titled.every(function (t) { return t.has(e[0]); })) e[1] *= R.titleBonus;
        });
      }
    }
    var context = R.contextCover ? optional.map(function (g) { return self.contextDocs(g); }) : null;
    var total = weights.reduce(function (a, b) { return a + b; }, 0);
    var final = function (e) { return self.finalScore(e, covers, weights, context, total); };
    if (!depth || R.strictTier) return this.ordered(all.map(final));
    // rank.py _best: coverage only lowers a score, so clauses are taken by raw score, best first,
    // until the next raw score is below the depth-th final score so far; the first depth are exact.
    all.sort(function (a, b) { return b[1] - a[1] || a[0] - b[0]; });
    var keyed = [], top = [];   // top: the best depth final scores so far, best first
    for (var i = 0; i < all.length; i++) {
      if (top.length === depth && all[i][1] < top[depth - 1]) break;
      var k = final(all[i]);
      keyed.push(k);
      if (top.length < depth || k[1] > top[depth - 1]) {
        var at = top.length;
        while (at > 0 && top[at - 1] < k[1]) at--;
        top.splice(at, 0, k[1]);
        if (top.length > depth) top.pop();
      }
    }
    return this.ordered(keyed).slice(0, depth);
  };
  // rank.py _covered: [tier, raw score times the square of the clause's share of the groups (_shares), doc]
  Engine.prototype.finalScore = function (e, covers, weights, context, total) {
    var R = this.R, got = 0;
    covers.forEach(function (c, i) {
      if (!weights[i]) return;
      if (c.has(e[0])) got += weights[i];
      else if (context && context[i].has(e[0])) got += R.contextCover * weights[i];
    });
    var share = total ? got / total : 1.0;
    return [share >= 1.0 - 1e-9 || !R.strictTier ? 1 : 0, e[1] * Math.pow(share, R.coveragePower), e[0]];
  };
  Engine.prototype.ordered = function (keyed) {
    keyed.sort(function (a, b) { return b[0] - a[0] || b[1] - a[1] || a[2] - b[2]; });
    return keyed.map(function (k) { return [k[2], k[1]]; });
  };

  // --- query (kb/search/parse.py) ---------------------------------------------------------------
  Engine.prototype.definitionTerm = function (text) {
    for (var i = 0; i < this.definitionRes.length; i++) {
      var m = this.definitionRes[i].exec(text);
      if (m) {
        var t = m.groups.term.replace(/^[ ?？]+|[ ?？]+$/g, "");
        if (t) return t;
      }
    }
    return null;
  };
  function chineseNumeral(n, numerals) {
    var tens = Math.floor(n / 10), ones = n % 10;
    if (!tens) return numerals[ones];
    return (tens === 1 ? "" : numerals[tens]) + "十" + (ones ? numerals[ones] : "");
  }
  function latinPhrase(text, phrase) {
    var body = words1(phrase).map(reEscape).join("[\\s\\-]+");
    return new RegExp("(?<![a-z])" + body + "(?:s|es|d|ed|'s|’s)?(?![a-z])").exec(text);
  }
  Engine.prototype.expand = function (w) {
    var idx = this.meta.synonyms.index;
    return Object.prototype.hasOwnProperty.call(idx, w) ? idx[w].slice() : [];
  };
  Engine.prototype.expandMined = function (w) {
    var mined = this.meta.synonyms.mined, curated = this.expand(w);
    if (!Object.prototype.hasOwnProperty.call(mined, w)) return [];
    return mined[w].filter(function (m) { return curated.indexOf(m) < 0; });
  };
  Engine.prototype.charRewrites = function (w) {
    var out = [], chars = this.meta.synonyms.chars;
    if (w.length < 2) return out;
    for (var i = 0; i < w.length; i++) {
      var alts = Object.prototype.hasOwnProperty.call(chars, w[i]) ? chars[w[i]] : [];
      alts.forEach(function (alt) {
        var cand = w.slice(0, i) + alt + w.slice(i + 1);
        if (cand !== w && out.indexOf(cand) < 0) out.push(cand);
      });
    }
    return out;
  };
  Engine.prototype.queryWords = function (text) {
    var out = [], self = this;
    this.analyze(text).words.forEach(function (t) {
      var w = t[0];
      if (w.length > 1 && !self.negators.has(w[0]) && !self.domain.has(w) && !self.known(w) &&
          !self.expand(w).length && !self.expandMined(w).length &&
          Array.from(w).every(function (c) { return isCJK(c.charCodeAt(0)); })) {
        var pieces = self.cutRun(w, w);
        if (pieces.some(function (p) { return self.domain.has(p) || (p.length > 1 && self.known(p)); })) {
          out.push.apply(out, pieces);
          return;
        }
      }
      out.push(w);
    });
    return out;
  };
  Engine.prototype.group = function (w) {
    var Q = this.Q, self = this;
    var alts = this.known(w) ? [[w, 1.0]] : [], names = new Set([w]);
    function addAlt(s, weight) {
      if (!names.has(s) && !self.stop.has(s)) { names.add(s); alts.push([s, weight]); }
    }
    this.expand(w).forEach(function (s) { addAlt(s, Q.synonym); });
    this.expandMined(w).forEach(function (s) { addAlt(s, Q.mined); });
    this.charRewrites(w).forEach(function (s) { if (self.known(s)) addAlt(s, Q.synonym); });
    if (w.length > 1 && this.negators.has(w[0]) && this.freq(w.slice(1)) && !this.freq(w)) {
      // parse.py: the negation joined (不碰 = 未碰 = 没碰), and the negation of a synonym of its word
      var word = w.slice(1);
      [word].concat(this.expand(word)).forEach(function (base) {
        Q.negationForms.forEach(function (neg) {
          var s = neg + base, means = self.expand(s);
          if (base !== word && means.length) {
            addAlt(s, Q.synonym);
            means.forEach(function (t) { addAlt(t, Q.synonym); });
          } else if (self.known(s)) addAlt(s, Q.synonym);
        });
      });
    }
    if (!alts.length) alts.push([w, 1.0]);
    var weight = this.generic(w) && !isAscii(w) ? Q.generic : 1.0;
    return { label: w, alts: alts.map(function (a) { return [a[0], a[1] * weight]; }), required: false, weight: weight };
  };
  // QueryParser.parse: {cites, groups, defines, text}.
  Engine.prototype.parse = function (q) {
    var self = this, Q = this.Q;
    var named1 = this.splitWork(q), work = named1[0];
    var coded = this.splitCodes(named1[1]), codes = coded[0];   // 2017 27B1b, 新规则 27B: the 2017 numbers
    var unread = coded[1].map(function (sp) { return q.slice(sp[0], sp[1]); });
    var split = this.splitCitations(coded[2]), cites = split[0], rest = this.normalize(split[1]);
    var groups = [], seen = new Set();
    rest = rest.replace(this.phraseRe, function () {
      var text = "";
      for (var i = 1; i < arguments.length; i++) {
        if (typeof arguments[i] === "string") { text = arguments[i]; break; }
        if (typeof arguments[i] === "number") break;
      }
      text = words1(text).join(" ");
      var words = self.wordsOf(text);
      if (words.length && !seen.has(text) && !(words.length === 1 && self.stop.has(words[0]))) {
        seen.add(text);
        groups.push({ label: text, alts: [[text, 1.0]], required: true, weight: 1.0 });
      }
      return " ";
    });
    rest = rest.replace(this.boardRe, " ");
    rest = rest.replace(this.countedRe, function (m, num) { return chineseNumeral(parseInt(num, 10), Q.numerals); });
    rest = Array.from(rest).map(function (ch) { return Q.quotes.indexOf(ch) >= 0 ? " " : ch; }).join("");
    var defines = this.definitionTerm(rest);
    if (defines !== null) rest = defines;     // parse.py: the asked term's words, not the question's frame
    if (/[a-z]/.test(rest)) {
      this.meta.synonyms.phrases.forEach(function (p) {
        var m = latinPhrase(rest, p);
        while (m !== null) {
          if (!seen.has(p)) { seen.add(p); groups.push(self.group(p)); }
          rest = rest.slice(0, m.index) + " " + rest.slice(m.index + m[0].length);
          m = latinPhrase(rest, p);
        }
      });
    }
    var words = this.queryWords(rest).map(function (w) {
      Q.questionPrefixes.forEach(function (p) { if (w.indexOf(p) === 0 && w.length > p.length) w = w.slice(p.length); });
      return w;
    });
    // parse.py: a word naming the game chooses the family of books, unless the query has nothing else
    var games = Q.games, isGame = function (w) { return Object.prototype.hasOwnProperty.call(games, w); };
    var asked = cites.length > 0 || groups.length > 0 || codes.length > 0 || words.some(function (w) { return !self.stop.has(w) && !isGame(w); });
    var named = new Set(asked ? words.filter(isGame).map(function (w) { return games[w]; }) : []);
    for (var i = 0; i < words.length; i++) {
      var w = words[i];
      if (this.stop.has(w) || seen.has(w) || (named.size && isGame(w))) continue;
      seen.add(w);
      groups.push(this.group(w));
      if (groups.length >= Q.maxGroups) break;
    }
    if (defines !== null) {
      defines = this.wordsOf(defines).filter(function (w) { return !self.stop.has(w) && !(named.size && isGame(w)); }).join("") || null;
    }
    if (named.size) Object.keys(games).forEach(function (w) { if (!isAscii(w)) rest = rest.split(w).join(" "); });
    return { cites: cites, groups: groups, defines: defines, text: words1(rest).join(" "),
             family: named.size === 1 ? Array.from(named)[0] : null, work: work, codes: codes, unread: unread };
  };

  // --- display blocks ---------------------------------------------------------------------------
  Engine.prototype.shown = function (d) {
    var size = this.meta.docBlock, blk = this.chunk("d" + Math.floor(d / size));
    if (!blk) return null;
    var k = d % size, hans = blk.hans[String(k)];
    return { citation: blk.citation[k], title: blk.title[k], text: blk.text[k], url: blk.url[k],
             titleHans: hans ? hans[0] : blk.title[k], textHans: hans ? hans[1] : blk.text[k],
             subjects: blk.subjects[k], tai: blk.tai[String(k)], under: blk.under ? blk.under[String(k)] : undefined,
             inForce: blk.inForce ? blk.inForce[String(k)] : undefined };
  };
  // rank.py phrase_text: the search form of title, text and subject terms (null until the block is loaded).
  Engine.prototype.phraseText = function (d) {
    var s = this.shown(d);
    return s ? this.normalize((s.titleHans + "\n" + s.textHans + "\n" + s.subjects).replace(RESTORED, "$1")) : null;
  };
  // engine.defines: does record d define term?
  Engine.prototype.defines = function (d, term) {
    var s = this.shown(d), D = this.meta.definitions;
    if (!s) return false;
    var title = this.normalize(s.titleHans || ""), text = this.normalize(s.textHans || "");
    if (title && (title === term || title === term + "的定义" || title === term + "定义" || title === "定义" + term)) return true;
    if (text.indexOf(term) === 0) {
      var next = text.slice(term.length, term.length + 2);
      if (D.marks.some(function (m) { return next.indexOf(m) === 0; })) return true;
    }
    var t = reEscape(term);
    return new RegExp("(?:" + D.before.map(reEscape).join("|") + ")" + t + "(?![\\u4e00-\\u9fff])|" +
      t + "(?:" + D.after.map(reEscape).join("|") + ")").test(text);
  };

  // --- search (kb/search/engine.py) ---------------------------------------------------------------
  Engine.prototype.cited = function (cites) {
    var out = new Set(), m = this.meta, self = this;
    cites.forEach(function (c) {
      var key = pathkey(c.path);
      self.works.forEach(function (w) {
        if (c.work && w !== c.work) return;
        var n = self.byId[w + ":" + suffix(c)];
        if (n !== undefined) out.add(n);
      });
      for (var d = 0; d < m.count; d++) {
        var w = m.works[m.work[d]];
        if ((!c.work || w === c.work) && m.pathkey[d] !== key && m.pathkey[d].indexOf(key) === 0) out.add(d);
      }
    });
    return out;
  };
  Engine.prototype.byCitation = function (cites, allowed) {
    var m = this.meta, self = this, exact = [], fallback = [], below = [];
    cites.forEach(function (c) {
      var key = pathkey(c.path);
      self.works.forEach(function (w) {
        if (c.work && w !== c.work) return;
        var n = self.byId[w + ":" + suffix(c)];
        if (n !== undefined) exact.push(n);
        else {
          for (var k = c.path.length - 1; k > 0; k--) {
            var a = self.byId[w + ":" + suffix({ law: c.law, path: c.path.slice(0, k) })];
            if (a !== undefined) { fallback.push(a); break; }
          }
        }
        for (var d = 0; d < m.count; d++) {
          if (m.works[m.work[d]] === w && m.pathkey[d] !== key && m.pathkey[d].indexOf(key) === 0) below.push(d);
        }
      });
    });
    below.sort(this.bookOrder.bind(this));
    var out = [], seen = new Set();
    [[exact, 100.0], [fallback, 50.0], [below, 10.0]].forEach(function (part) {
      part[0].forEach(function (d) {
        if (!seen.has(d) && allowed(d)) { seen.add(d); out.push([d, part[1]]); }
      });
    });
    return out;
  };
  // inforce.CodeMap.find: [[doc, score], …] a 2017 citation finds, and the citation above it they were
  // found by (null when found by the citation itself or not found)
  Engine.prototype.codeFind = function (c) {
    var S = this.meta.codeNotes.scores, key = pathkey(c.path), hits = [];
    (this.codeExact[key] || []).forEach(function (d) { hits.push([d, S[0]]); });
    this.meta.codeMap.forEach(function (e) {
      if (e[0] !== key && e[0].indexOf(key) === 0) e[1].forEach(function (d) { hits.push([d, S[1]]); });
    });
    if (hits.length) return [hits, null];
    for (var k = c.path.length - 1; k > 0; k--) {
      var docs = this.codeExact[pathkey(c.path.slice(0, k))];
      if (docs && docs.length) return [docs.map(function (d) { return [d, S[2]]; }), c.path.slice(0, k)];
    }
    return [[], null];
  };
  // inforce.CodeMap.ranked: the records the citations find, each once (allowed by the filter)
  Engine.prototype.codeRanked = function (cites, allowed) {
    var out = [], seen = new Set(), self = this;
    cites.forEach(function (c) {
      self.codeFind(c)[0].forEach(function (h) {
        if (!seen.has(h[0]) && (!allowed || allowed(h[0]))) { seen.add(h[0]); out.push(h); }
      });
    });
    return out;
  };
  // engine.py _by_code: the clauses that became the 2017 citation, each with its concordance line (a
  // twin leads only if it became it too), then what the query's other citations and words find
  Engine.prototype.byCode = function (parsed, limit, work, lead) {
    var self = this, m = this.meta;
    function allowed(d) { return !work || m.works[m.work[d]] === work; }
    var hits = this.codeRanked(parsed.codes, allowed), found = new Set(hits.map(function (h) { return h[0]; }));
    var ranked = this.foldTwins(hits, limit, function (d) { return found.has(d); }, lead);
    if (parsed.cites.length || parsed.groups.length) {
      var placed = new Set();
      ranked.forEach(function (r) { placed.add(r[0]); if (r[0] in self.twin) placed.add(self.twin[r[0]]); });
      this.ranked(parsed, limit, work, lead).forEach(function (r) {
        if (!placed.has(r[0]) && !(r[0] in self.twin && placed.has(self.twin[r[0]]))) ranked.push(r);
      });
    }
    return ranked.slice(0, limit).map(function (r) {
      var x = self.result(r[0], parsed, r[1]);
      if (x && found.has(r[0])) { var s = self.shown(r[0]); if (s && s.inForce) x.in_force = s.inForce; }
      return x;
    });
  };
  // inforce.label: 2017 版第27条, 2017 版 27B1(b)
  function shownPath(path) { return path.slice(0, 3).join("") + (path.length > 3 ? "(" + path.slice(3).join("") + ")" : ""); }
  Engine.prototype.codeLabel = function (path) {
    var T = this.meta.codeNotes;
    return (path.length === 1 ? T.law : T.clause).replace("{label}", function () { return T.label; })
      .replace("{law}", function () { return path[0]; }).replace("{cite}", function () { return shownPath(path); });
  };
  // inforce.notes: what the answer says of each 2017 citation not answered by itself, and of each attempt
  Engine.prototype.codeNotes = function (parsed) {
    var T = this.meta.codeNotes, self = this, out = [];
    parsed.codes.forEach(function (c) {
      var f = self.codeFind(c), hits = f[0], nearest = f[1], cite = self.codeLabel(c.path), text;
      if (hits.length && nearest === null) return;
      if (hits.length) {
        var near = self.codeLabel(nearest);
        text = T.nearest.replace("{cite}", function () { return cite; }).replace("{nearest}", function () { return near; });
      } else text = T.none.replace("{cite}", function () { return cite; });
      out.push({ code: T.code, asked: c.text, citation: c.path.join(""), nearest: nearest ? nearest.join("") : null, text: text });
    });
    parsed.unread.forEach(function (asked) {
      out.push({ code: T.code, asked: asked, citation: null, nearest: null,
                 text: T.unread.replace("{text}", function () { return asked; }) });
    });
    return out;
  };
  // engine.py _book_order: the registry's order of works (meta.work indexes it), then the book's.
  Engine.prototype.bookOrder = function (a, b) {
    var m = this.meta;
    return m.work[a] - m.work[b] || m.order[a] - m.order[b];
  };
  // engine.py _topic_first: words that only name the cited clause's topic ask for that clause.
  Engine.prototype.topicFirst = function (ranked, cites, groups) {
    var self = this, topical = [];
    cites.forEach(function (c) {
      self.works.forEach(function (w) {
        if (c.work && w !== c.work) return;
        var n = self.byId[w + ":" + suffix(c)];
        if (n !== undefined && topical.indexOf(n) < 0 &&
            groups.every(function (g) { return self.titled(g, n); })) topical.push(n);
      });
    });
    if (!topical.length) return ranked;
    var score = ranked[0][1];
    topical.sort(this.bookOrder.bind(this));
    var keep = new Set(topical);
    return topical.map(function (d) { return [d, score]; })
      .concat(ranked.filter(function (r) { return !keep.has(r[0]); }));
  };
  // engine.py _titled: does the title of record d, or of a record above it, hold one of the group's
  // strings? (meta.titles: each title's search form, rank.py Ranker.title)
  Engine.prototype.titled = function (g, d) {
    var m = this.meta;
    if (!this.byPath) {
      this.byPath = new Map();
      for (var i = 0; i < m.count; i++) this.byPath.set(m.work[i] + " " + m.pathkey[i], i);
    }
    var parts = m.pathkey[d].split("/").slice(0, -1), found = false;
    for (var k = parts.length; k > 0 && !found; k--) {
      var a = this.byPath.get(m.work[d] + " " + pathkey(parts.slice(0, k)));
      var title = a === undefined ? "" : m.titles[a];
      found = !!title && strings(g).some(function (x) { return x && title.indexOf(x) >= 0; });
    }
    return found;
  };
  Engine.prototype.definitionsFirst = function (ranked, terms, family) {
    var self = this, head = ranked.slice(0, this.meta.definitions.window);
    var defining = head.filter(function (r) {
      return (family === null || self.meta.family[r[0]] === family)
        && terms.some(function (t) { return t && self.defines(r[0], t); });
    });
    if (!defining.length) return ranked;
    var keep = new Set(defining.map(function (r) { return r[0]; }));
    return defining.concat(ranked.filter(function (r) { return !keep.has(r[0]); }));
  };
  // engine.py _specific_first: a bare heading that came first gives way to the clause under it
  // that the question also found, unless the question is one term or its title holds every term.
  Engine.prototype.specificFirst = function (ranked, groups) {
    var m = this.meta;
    if (!ranked.length || !this.headings.has(ranked[0][0])) return ranked;
    var top = ranked[0][0], title = m.titles[top];
    var named = groups.filter(function (g) { return !g.required && g.weight > m.query.generic; });
    if (named.length === 1 || named.length && named.every(function (g) {
      return strings(g).some(function (s) { return s && title.indexOf(s) >= 0; });
    })) return ranked;
    for (var i = 1; i < Math.min(m.headingWindow, ranked.length); i++) {
      var n = ranked[i][0];
      if (m.work[n] === m.work[top] && m.pathkey[n].indexOf(m.pathkey[top]) === 0) {
        return [ranked[i]].concat(ranked.slice(0, i), ranked.slice(i + 1));
      }
    }
    return ranked;
  };
  // engine.py _fold_twins: one result per clause and its twin, at the better one's place; the
  // clause of the work listed first in the registry leads, unless the filter leaves it out.
  // ``lead``: the work whose clause leads the pair (the book being read), if it is one of the two.
  Engine.prototype.foldTwins = function (ranked, limit, allowed, lead) {
    var out = [], placed = new Set(), self = this, m = this.meta;
    for (var i = 0; i < ranked.length && out.length < limit; i++) {
      var d = ranked[i][0];
      if (placed.has(d)) continue;
      placed.add(d);
      if (d in self.twin) {
        var t = self.twin[d];
        placed.add(t);
        if (!allowed || allowed(t)) {
          var first = m.work[t] < m.work[d];
          if (lead && (m.works[m.work[d]] === lead || m.works[m.work[t]] === lead)) first = m.works[m.work[t]] === lead;
          if (first) d = t;
        }
      }
      out.push([d, ranked[i][1]]);
    }
    return out;
  };

  // SearchEngine.search up to the ranked records: [[doc, score], ...].
  Engine.prototype.ranked = function (parsed, limit, work, lead) {
    var self = this, m = this.meta, ranked;
    function allowed(d) { return !work || m.works[m.work[d]] === work; }
    // engine.py _depth: how much of a ranking must be exact
    var defining = parsed.defines || (parsed.groups.length === 1 && !parsed.groups[0].required);
    var depth = Math.max(2 * limit, m.headingWindow, defining ? m.definitions.window : 0);
    if (!parsed.groups.length) ranked = this.byCitation(parsed.cites, allowed);
    else if (parsed.cites.length) {
      var inside = this.cited(parsed.cites);
      ranked = this.rankGroups(parsed.groups, function (d) { return inside.has(d) && allowed(d); }, parsed.text, depth, parsed.family);
      if (!ranked.length) ranked = this.byCitation(parsed.cites, allowed);
      else ranked = this.topicFirst(ranked, parsed.cites, parsed.groups);
      var seen = new Set(ranked.map(function (r) { return r[0]; }));
      this.rankGroups(parsed.groups, allowed, parsed.text, depth + seen.size, parsed.family)
        .forEach(function (r) { if (!seen.has(r[0])) ranked.push(r); });
    } else {
      ranked = this.rankGroups(parsed.groups, allowed, parsed.text, depth, parsed.family);
      if (parsed.defines) {
        // engine.py: the clause defining a synonym of the asked term defines it too
        var terms = [parsed.defines];
        parsed.groups.forEach(function (g) {
          if (g.label === parsed.defines) strings(g).forEach(function (x) { if (terms.indexOf(x) < 0) terms.push(x); });
        });
        ranked = this.definitionsFirst(ranked, terms, parsed.family);
      }
      else {
        if (parsed.groups.length === 1 && !parsed.groups[0].required) {
          ranked = this.definitionsFirst(ranked, strings(parsed.groups[0]), parsed.family);
        }
        ranked = this.specificFirst(ranked, parsed.groups);
      }
    }
    return this.foldTwins(ranked, limit, allowed, lead);
  };
  Engine.prototype.result = function (d, parsed, score) {
    var s = this.shown(d), self = this;
    if (!s) return null;
    var hay = this.normalize(s.titleHans + "\n" + s.textHans), hits = [];
    // parse.py ParsedQuery.marks: a single character only when the query has no longer string
    var long = parsed.groups.some(function (g) { return strings(g).some(function (x) { return x.length > 1; }); });
    parsed.groups.forEach(function (g) {
      strings(g).forEach(function (x) { if (x && (!long || x.length > 1) && hay.indexOf(x) >= 0) hits.push(x); });
    });
    var r = { id: this.meta.ids[d], work: this.meta.works[this.meta.work[d]], citation: s.citation, title: s.title,
              snippet: this.highlight(s.text || s.title, hits), url: s.url };
    if (s.tai) r.tai = s.tai;
    if (score !== undefined) {
      r.score = Math.round(score * 10000) / 10000;
      var t = this.twin[d];
      r.twins = t === undefined ? [] : [self.result(t, parsed)];
      // engine.py: the clause it stands under (its citation, title and lead-in), if any
      if (s.under) r.under = { citation: s.under.citation, title: s.under.title, name: s.under.name, text: s.under.text };
    }
    return r;
  };
  // Results as the API gives them: {id, work, citation, title, score, snippet, url, twins, under}.
  Engine.prototype.search = function (q, opts) {
    opts = opts || {};
    var self = this, limit = opts.limit || 10, work = opts.work || null, lead = opts.lead || null, Q = this.Q;
    q = String(q);
    if (q.length > Q.maxQuery) return Promise.reject(new Error("query too long: " + q.length + " characters (at most " + Q.maxQuery + ")"));
    q = q.replace(CONTROLS, " ");
    var preload = uniq(Array.from(this.normalize(q)).filter(function (c) { return c.trim(); })
      .map(function (c) { return self.lexShard(c); }));
    return this.complete(function () {
      var parsed = self.parse(q);
      if (!parsed.cites.length && !parsed.groups.length && !parsed.codes.length) return [];
      // engine.py: the book the question names (laws1997 47E2) is the one searched, and leads
      var named = parsed.work && self.works.indexOf(parsed.work) >= 0 ? parsed.work : null;
      work = work || named; lead = lead || named;
      if (parsed.codes.length) return self.byCode(parsed, limit, work, lead);
      var ranked = self.ranked(parsed, limit, work, lead), out = [];
      if (ranked.length < Q.phraseFew && parsed.groups.some(function (g) { return g.required; })) {
        // engine.py: a quoted phrase few clauses hold as typed: after them, its words as ordinary words
        parsed = self.parse(unquoted(q, Q.quotes));
        var placed = new Set();
        ranked.forEach(function (r) { placed.add(r[0]); if (r[0] in self.twin) placed.add(self.twin[r[0]]); });
        self.ranked(parsed, limit, work, lead).forEach(function (r) {
          if (!placed.has(r[0]) && !(r[0] in self.twin && placed.has(self.twin[r[0]]))) ranked.push(r);
        });
      }
      ranked.slice(0, limit).forEach(function (r) { out.push(self.result(r[0], parsed, r[1])); });
      return out;
    }, preload);
  };

  // --- what no book holds (kb/search/outside.py; engine.py answer) -------------------------------
  // outside.found: a word in a text (both in search form); a word beginning or ending with a Latin
  // letter only as a whole word (imp is not in impossible).
  function latin(ch) { return /[a-z]/i.test(ch) && isAscii(ch); }
  function found(word, text) {
    var head = latin(word[0]), tail = latin(word[word.length - 1]);
    if (!head && !tail) return text.indexOf(word) >= 0;
    for (var i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) {
      var before = text[i - 1], after = text[i + word.length];
      if ((!head || before === undefined || !/[a-z]/.test(before)) && (!tail || after === undefined || !/[a-z]/.test(after))) return true;
    }
    return false;
  }
  // outside.concerns: [matter rows] a question may concern (by its words, or citing a listed law);
  // none of another game than the book the search is limited to, or than the games the question names.
  Engine.prototype.concerns = function (q, cites, work) {
    var T = this.meta.outside, normal = this.normalize(q), named = new Set(), cited = new Set();
    T.games.forEach(function (g) { if (found(g[0], normal)) named.add(g[1]); });
    var limited = work ? T.workFamily[work] : null;
    cites.forEach(function (c) { if (c.law !== null) cited.add(c.law); });
    return T.matters.filter(function (o) {
      if (limited && o[2] !== limited || named.size && !named.has(o[2])) return false;
      return cited.has(o[1]) || o[5].some(function (w) { return found(w, normal); }) ||
        named.has(o[2]) && o[6].some(function (w) { return found(w, normal); });
    });
  };
  // engine.py coverage: the share of the question's words (weight times rarity) record n holds, with
  // its twin, or under a title holding them; words claimed by a matter not held count for nothing.
  Engine.prototype.coverage = function (parsed, n, claimed) {
    var self = this, total = 0, got = 0;
    var groups = parsed.groups.filter(function (g) { return !g.required; });
    if (!groups.length) return 1.0;
    groups.forEach(function (g) {
      var w = g.weight * self.rarity(g);
      total += w;
      var c = self.groupDocs(g), held = c.has(n) || (n in self.twin && c.has(self.twin[n])) || self.contextDocs(g).has(n);
      if (held && !claimed(g.label)) got += w;
    });
    return total ? got / total : 1.0;
  };
  // engine.py weak: does no result cover meta.weak.coverage of the question?
  Engine.prototype.weak = function (parsed, docs, matters, q) {
    var self = this, normal = this.normalize(q), best = 0;
    if (parsed.cites.length && this.cited(parsed.cites).size || parsed.codes.length && this.codeRanked(parsed.codes, null).length) return false;
    function claimed(label) {
      return matters.some(function (o) {
        return o[5].concat(o[6]).some(function (w) { return w.indexOf(label) >= 0 && found(w, normal); });
      });
    }
    docs.forEach(function (d) { best = Math.max(best, self.coverage(parsed, d, claimed)); });
    return best < this.meta.weak.coverage;
  };
  // outside.not_held: the answer's note, or null.
  function notHeld(T, matters, shown, weak) {
    if (!matters.length && !weak) return null;
    var text = T.weak;
    if (matters.length) {
      var laws = matters.filter(function (o) { return o[1] !== null; }).map(function (o) { return o[4]; });
      var parts = (laws.length ? [T.laws + laws.join("、")] : [])
        .concat(matters.filter(function (o) { return o[1] === null; }).map(function (o) { return o[4]; }));
      text = (shown ? T.notice : T.none).replace("{what}", parts.join("、"));
    }
    return { matters: matters.map(function (o) { return { matter: o[0], law: o[1], title: o[3] }; }), weak: weak, text: text };
  }
  // SearchEngine.answer: {results, not_held} (the results withheld when none covers enough of the question).
  Engine.prototype.answer = function (q, opts) {
    opts = opts || {};
    var self = this, limit = opts.limit || 10, work = opts.work || null, depth = this.meta.weak.depth;
    return this.search(q, opts).then(function (results) {
      var more = work || limit >= depth ? Promise.resolve(results)
        : self.search(q, { limit: depth, lead: opts.lead || null });
      return more.then(function (first) {
        var clean = String(q).replace(CONTROLS, " ");
        return self.complete(function () {
          var parsed = self.parse(clean), matters = self.concerns(clean, parsed.cites, work), weak = false;
          if (!work && (parsed.cites.length || parsed.groups.length)) {
            weak = self.weak(parsed, first.slice(0, depth).map(function (r) { return self.byId[r.id]; }), matters, clean);
          }
          var shown = weak ? [] : results;
          var held = notHeld(self.meta.outside, matters, shown.length > 0, weak), said = self.codeNotes(parsed);
          // inforce.with_notes: a 2017 citation with no counterpart here, or one above it only: said first
          if (said.length) {
            var text = said.map(function (x) { return x.text; }).join("");
            held = held === null ? { matters: [], weak: false, text: text, codes: said }
              : Object.assign({}, held, { text: text + held.text, codes: said });
          }
          return { results: shown, not_held: held };
        });
      });
    });
  };

  function esc(s) {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
  }
  // HTML snippet of display text with each term in <mark>; everything else escaped (snippet.py).
  Engine.prototype.highlight = function (display, terms) {
    var width = this.meta.snippet;
    if (!display) return "";
    var norm = this.normalize(display), taken = new Uint8Array(norm.length), spans = [];
    uniq(terms.filter(Boolean)).sort(function (a, b) { return b.length - a.length; }).forEach(function (t) {
      var start = norm.indexOf(t);
      while (start >= 0) {
        var end = start + t.length, busy = false;
        for (var i = start; i < end; i++) if (taken[i]) { busy = true; break; }
        if (!busy) { spans.push([start, end]); for (var k = start; k < end; k++) taken[k] = 1; }
        start = norm.indexOf(t, start + 1);
      }
    });
    spans.sort(function (a, b) { return a[0] - b[0]; });
    var lo = 0, hi = display.length;
    if (display.length > width) {
      var bestLo = 0, bestN = -1;
      spans.forEach(function (sp) {
        var cand = Math.max(0, Math.min(sp[0] - Math.floor(width / 6), display.length - width));
        var n = spans.filter(function (x) { return x[0] >= cand && x[1] <= cand + width; }).length;
        if (n > bestN) { bestLo = cand; bestN = n; }
      });
      lo = bestLo; hi = bestLo + width;
    }
    var out = lo > 0 ? "…" : "", pos = lo;
    spans.forEach(function (sp) {
      if (sp[0] >= lo && sp[1] <= hi) {
        out += esc(display.slice(pos, sp[0])) + "<mark>" + esc(display.slice(sp[0], sp[1])) + "</mark>";
        pos = sp[1];
      }
    });
    out += esc(display.slice(pos, hi));
    if (hi < display.length) out += "…";
    return out;
  };

  var KbEngine = {
    termHash: termHash,
    // Open the index whose meta chunk is at metaPath; load(path) -> Promise of a chunk's data.
    open: function (metaPath, load) {
      return load(metaPath).then(function (meta) { return new Engine(meta, load); });
    }
  };
  global.KbEngine = KbEngine;
  if (typeof module === "object" && module.exports) module.exports = KbEngine;
})(typeof self !== "undefined" ? self : this);

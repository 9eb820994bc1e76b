// The site's own search engine: the server engine's query analysis over the static index that
// `kb build` writes (kb/site/static_search.py). Runs in the page (also from file://) and in node
// (bench/static_search_bench.py). No DOM here: KbEngine.open(load) takes a loader that returns a
// Promise of a chunk's data given its path relative to the edition root.
(function (global) {
  "use strict";

  var K1 = 1.2, B = 0.75;
  var CANDIDATES = 200;

  function isCJK(code) {
    return (code >= 0x4E00 && code <= 0x9FFF) || (code >= 0x3400 && code <= 0x4DBF) ||
      (code >= 0xF900 && code <= 0xFAFF) || (code >= 0xD840 && code <= 0xD87E);
  }
  var ALNUM = /[\p{L}\p{N}]/u;

  function termHash(term) {
    var h = 0x811C9DC5;
    for (var i = 0; i < term.length; i++) {
      h ^= term.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h >>> 0;
  }

  function Engine(meta, load) {
    this.meta = meta;
    this.load = load;
    this.n = meta.count;
    this.p = meta.params;
    this.vocab = new Set(meta.vocab.split(" "));
    this.maxWord = 1;
    var self = this;
    this.vocab.forEach(function (w) { if (w.length > self.maxWord) self.maxWord = w.length; });
    this.fold = {};
    var from = Array.from(meta.fold[0]), to = Array.from(meta.fold[1]);
    for (var i = 0; i < from.length; i++) this.fold[from[i]] = to[i];
    this.stop = new Set(meta.stopwords);
    this.syn = {};
    this.synChars = {};
    meta.synonyms.forEach(function (group) {
      var single = group.every(function (m) { return m.length === 1; });
      group.forEach(function (m) {
        var others = self.syn[m] || (self.syn[m] = []);
        group.forEach(function (o) { if (o !== m && others.indexOf(o) < 0) others.push(o); });
        if (single) {
          var cs = self.synChars[m] || (self.synChars[m] = []);
          group.forEach(function (o) { if (o !== m && cs.indexOf(o) < 0) cs.push(o); });
        }
      });
    });
    this.byId = {};
    meta.ids.forEach(function (id, n) { self.byId[id] = n; });
    this.cites = meta.citations.patterns.map(function (p) { return { kind: p[0], re: new RegExp(p[1], p[2]) }; });
    this.shards = {};     // shard number -> Promise of {w: {...}, g: {...}}
    this.blocks = {};     // block number -> Promise of display data
    this.postingCache = {};
    this.coverCache = new Map();
  }

  // --- analysis ---------------------------------------------------------------------------
  // The server's fold (fullwidth to halfwidth, Traditional to Simplified), same length.
  Engine.prototype.foldText = function (text) {
    var out = "";
    for (var i = 0; i < text.length; i++) {
      var f = this.fold[text[i]];
      out += f === undefined ? text[i] : f;
    }
    return out;
  };

  // fold plus lowercase, keeping the length.
  Engine.prototype.normalize = function (text) {
    var folded = this.foldText(text), out = "";
    for (var i = 0; i < folded.length; i++) {
      var l = folded[i].toLowerCase();
      out += l.length === 1 ? l : folded[i];
    }
    return out;
  };

  // Runs of a normalized text: [run, start, end, isCJK]; other characters split runs.
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

  // Words of a normalized text: forward maximum match over the index's vocabulary.
  Engine.prototype.words = function (norm) {
    var out = [], self = this;
    runs(norm).forEach(function (r) {
      if (!r[3]) { out.push(r[0]); return; }
      var s = r[0], i = 0;
      while (i < s.length) {
        var L = Math.min(self.maxWord, s.length - i), w = s[i];
        for (; L >= 2; L--) {
          if (self.vocab.has(s.substr(i, L))) { w = s.substr(i, L); break; }
        }
        out.push(w);
        i += w.length;
      }
    });
    return out;
  };

  // The gram terms that show a string occurs in a record (all must be present).
  function gramSeq(norm) {
    var out = [];
    runs(norm).forEach(function (r) {
      if (!r[3] || r[0].length === 1) { out.push(r[0]); return; }
      for (var i = 0; i + 1 < r[0].length; i++) out.push(r[0].substr(i, 2));
    });
    return out;
  }

  // --- citations (the server's grammar, exported by the build) ----------------------------
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
    var digits = /^[0-9]+$/.test(raw);
    var num = digits ? parseInt(raw, 10) : this.chineseNumber(raw);
    if (num === null) return null;
    if (kind === "mj") {
      if (num < 1 || num > c.maxPattern) return null;
      return { law: null, path: [c.mahjongSection, String(num)], work: c.mahjongWork };
    }
    if (kind === "zh" && !g.di && (!digits || !g.clause)) return null;
    if (num < 1 || num > c.maxLaw) return null;
    var path = [String(num)];
    if (g.clause) {
      path.push(g.clause.toUpperCase());
      if (g.item) {
        path.push(String(parseInt(g.item, 10)));
        var sub = g.sub || g.sub2;
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
        c.start = s; c.end = e; c.text = q.slice(s, e);
        found.push(c);
        for (var k = s; k < e; k++) taken[k] = true;
      }
    });
    found.sort(function (a, b) { return a.start - b.start; });
    var rest = "";
    for (var i = 0; i < q.length; i++) rest += taken[i] ? " " : q[i];
    return [found, rest.split(/\s+/).filter(Boolean).join(" ")];
  };

  function suffix(c) { return c.law === null ? c.path.join(".") : c.path.join(""); }
  function pathkey(c) { return c.path.map(function (p) { return p + "/"; }).join(""); }

  // --- postings ---------------------------------------------------------------------------
  Engine.prototype.shard = function (n) {
    if (!this.shards[n]) this.shards[n] = this.load(this.meta.files["p" + n]);
    return this.shards[n];
  };

  Engine.prototype.ensure = function (terms) {
    var self = this, need = {};
    terms.forEach(function (t) { need[termHash(t) % self.meta.shards] = true; });
    return Promise.all(Object.keys(need).map(function (n) {
      return self.shard(+n).then(function (data) { self.shards["loaded" + n] = data; });
    }));
  };

  // {docs: Map doc -> [tf...]} of a loaded term ("w:word" or "g:gram").
  Engine.prototype.posting = function (term) {
    var hit = this.postingCache[term];
    if (hit) return hit;
    var data = this.shards["loaded" + (termHash(term) % this.meta.shards)];
    var kind = term[0], text = term.slice(2);
    var flat = data && data[kind][text];
    var width = kind === "w" ? 3 : 1, map = new Map(), doc = 0;
    var df = kind === "w" ? [0, 0, 0] : [0];
    if (flat) {
      for (var i = 0; i < flat.length; i += width + 1) {
        doc += flat[i];
        var row = flat.slice(i + 1, i + 1 + width);
        map.set(doc, row);
        for (var k = 0; k < width; k++) if (row[k]) df[k]++;
      }
    }
    hit = { docs: map, df: df };
    this.postingCache[term] = hit;
    return hit;
  };

  Engine.prototype.bm25 = function (tf, df, field, doc) {
    var L = this.meta.lengths[field][doc] || 1, avg = this.meta.avg[field] || 1;
    var idf = Math.log(this.n / (df + 1)) + 1;
    return idf * (tf * (K1 + 1)) / (tf + K1 * ((1 - B) + B * L / avg));
  };

  // --- query ------------------------------------------------------------------------------
  var PHRASE = /"([^"]*)"|“([^”]*)”|「([^」]*)」|『([^』]*)』|《([^》]*)》/g;
  var QUOTES = /["“”「」『』《》]/g;

  Engine.prototype.parse = function (q) {
    var split = this.splitCitations(q), cites = split[0];
    var rest = this.normalize(split[1]), groups = [], seen = new Set(), self = this;
    rest = rest.replace(PHRASE, function () {
      var text = "";
      for (var i = 1; i < arguments.length - 2; i++) if (typeof arguments[i] === "string") { text = arguments[i]; break; }
      text = text.split(/\s+/).filter(Boolean).join(" ");
      var toks = self.words(text);
      if (toks.length && !seen.has(text)) {
        seen.add(text);
        if (toks.length === 1 && self.stop.has(toks[0])) return " ";
        groups.push({ label: text, alts: [[text, 1]], required: true });
      }
      return " ";
    }).replace(QUOTES, " ");
    var words = this.words(rest);
    for (var i = 0; i < words.length && groups.length < this.p.maxGroups; i++) {
      var w = words[i];
      this.meta.questionPrefixes.forEach(function (p) {
        if (w.indexOf(p) === 0 && w.length > p.length) w = w.slice(p.length);
      });
      if (this.stop.has(w) || seen.has(w)) continue;
      seen.add(w);
      groups.push(this.group(w));
    }
    return { cites: cites, groups: groups };
  };

  Engine.prototype.group = function (w) {
    var alts = [[w, 1]], names = new Set([w]), self = this, p = this.p;
    (this.syn[w] || []).forEach(function (s) {
      if (!names.has(s) && !self.stop.has(s)) { names.add(s); alts.push([s, p.synonym]); }
    });
    if (w.length >= 2) {
      for (var i = 0; i < w.length; i++) {
        (this.synChars[w[i]] || []).forEach(function (alt) {
          var cand = w.slice(0, i) + alt + w.slice(i + 1);
          if (!names.has(cand)) { names.add(cand); alts.push([cand, p.synonym, "corpus"]); }
        });
      }
    }
    if (w.length >= p.subwordMinLen) {
      for (var a = 0; a < w.length; a++) {
        for (var b = a + 2; b <= w.length; b++) {
          var s = w.slice(a, b);
          if (s !== w && this.vocab.has(s) && !names.has(s) && !this.stop.has(s)) {
            names.add(s); alts.push([s, p.subword, "corpus"]);
          }
        }
      }
    }
    return { label: w, alts: alts, required: false };
  };

  Engine.prototype.terms = function (groups) {
    var out = [], self = this;
    groups.forEach(function (g) {
      g.alts.forEach(function (a) {
        self.words(a[0]).forEach(function (t) { out.push("w:" + t); });
        gramSeq(a[0]).forEach(function (t) { out.push("g:" + t); });
      });
    });
    return out;
  };

  // Records in which a string occurs (every gram of it, or for a lone word its word posting).
  Engine.prototype.covering = function (s) {
    var self = this, out = null;
    if (this.coverCache.has(s)) return this.coverCache.get(s);
    gramSeq(s).forEach(function (t) {
      var docs = self.posting("g:" + t).docs, next = new Set();
      if (out === null) docs.forEach(function (_, d) { next.add(d); });
      else out.forEach(function (d) { if (docs.has(d)) next.add(d); });
      out = next;
    });
    out = out || new Set();
    var toks = this.words(s);
    if (toks.length === 1) this.posting("w:" + toks[0]).docs.forEach(function (_, d) { out.add(d); });
    this.coverCache.set(s, out);
    return out;
  };

  // Scores of one alternative string: words in title/text/context, grams; [Map doc -> score].
  Engine.prototype.altScores = function (s, weight, acc, allowed) {
    var toks = this.words(s), seq = gramSeq(s), p = this.p, self = this;
    if (!toks.length || !seq.length) return;
    var fields = [["title", 0, p.title], ["text", 1, p.text], ["context", 2, p.context]];
    fields.forEach(function (f) {
      var per = null;
      toks.forEach(function (t) {
        var post = self.posting("w:" + t), next = new Map();
        post.docs.forEach(function (row, d) {
          if (!row[f[1]] || (allowed && !allowed.has(d))) return;
          if (per && !per.has(d)) return;
          next.set(d, (per ? per.get(d) : 0) + self.bm25(row[f[1]], post.df[f[1]], f[0], d));
        });
        per = next;
      });
      if (per) per.forEach(function (sc, d) { acc.set(d, (acc.get(d) || 0) + sc * f[2] * weight); });
    });
    if (p.grams > 0 && (seq.length > 1 || seq[0].length > 1)) {
      var per = null;
      seq.forEach(function (t) {
        var post = self.posting("g:" + t), next = new Map();
        post.docs.forEach(function (row, d) {
          if ((allowed && !allowed.has(d)) || (per && !per.has(d))) return;
          next.set(d, (per ? per.get(d) : 0) + self.bm25(row[0], post.df[0], "grams", d));
        });
        per = next;
      });
      per.forEach(function (sc, d) { acc.set(d, (acc.get(d) || 0) + sc * p.grams * weight); });
    }
  };

  Engine.prototype.isCommon = function (g) {
    var self = this;
    return g.alts.every(function (a) {
      var toks = self.words(a[0]);
      return toks.length === 1 && self.posting("w:" + toks[0]).df[1] > 0.3 * self.n;
    });
  };

  Engine.prototype.byWords = function (parsed, limit, allowed) {
    var self = this;
    var required = parsed.groups.filter(function (g) { return g.required; });
    var optional = parsed.groups.filter(function (g) { return !g.required; });
    var rare = optional.filter(function (g) { return !self.isCommon(g); });
    var scores = new Map();
    if (required.length) {
      var must = allowed;
      required.forEach(function (g) {
        var acc = new Map();
        g.alts.forEach(function (a) { self.altScores(a[0], a[1], acc, must); });
        var cov = new Set();
        g.alts.forEach(function (a) { self.covering(a[0]).forEach(function (d) { cov.add(d); }); });
        var next = new Set();
        acc.forEach(function (sc, d) { if (cov.has(d)) { next.add(d); scores.set(d, (scores.get(d) || 0) + sc); } });
        scores.forEach(function (_, d) { if (!next.has(d)) scores.delete(d); });
        must = next;
      });
      if (!must || !must.size) return [];
      (rare.length ? rare : optional).forEach(function (g) {
        var acc = new Map();
        g.alts.forEach(function (a) { self.altScores(a[0], a[1], acc, must); });
        acc.forEach(function (sc, d) { scores.set(d, (scores.get(d) || 0) + sc); });
      });
    } else {
      (rare.length ? rare : optional).forEach(function (g) {
        g.alts.forEach(function (a) { self.altScores(a[0], a[1], scores, allowed); });
      });
    }
    var cands = Array.from(scores.entries()).sort(function (a, b) { return b[1] - a[1] || a[0] - b[0]; })
      .slice(0, Math.max(CANDIDATES, limit * 5));
    var cover = optional.map(function (g) {
      var set = new Set();
      g.alts.forEach(function (a) { self.covering(a[0]).forEach(function (d) { set.add(d); }); });
      return set;
    });
    var weights = cover.map(function (set) {
      var any = cands.some(function (c) { return set.has(c[0]); });
      return any ? Math.log(1 + self.n / (1 + set.size)) : 0;
    });
    var total = weights.reduce(function (a, b) { return a + b; }, 0);
    var keyed = cands.map(function (c) {
      var got = 0;
      cover.forEach(function (set, i) { if (set.has(c[0])) got += weights[i]; });
      var share = total ? got / total : 1;
      return [share >= 1 - 1e-9 ? 1 : 0, c[1] * share, c[0]];
    });
    keyed.sort(function (a, b) { return b[0] - a[0] || b[1] - a[1] || a[2] - b[2]; });
    return keyed.map(function (k) { return [k[2], k[1]]; });
  };

  Engine.prototype.allowed = function (work, cites) {
    var m = this.meta, works = m.works, out = null;
    if (!work && !(cites && cites.length)) return null;
    out = new Set();
    for (var d = 0; d < this.n; d++) {
      var w = works[m.work[d]];
      if (work && w !== work) continue;
      if (cites && cites.length && !cites.some(function (c) {
        return m.pathkey[d].indexOf(pathkey(c)) === 0 && (!c.work || c.work === w);
      })) continue;
      out.add(d);
    }
    return out;
  };

  Engine.prototype.byCitation = function (cites, work) {
    var m = this.meta, self = this, exact = [], fallback = [], below = [];
    var works = m.works.filter(function (w) { return !work || w === work; });
    cites.forEach(function (c) {
      works.forEach(function (w) {
        if (c.work && w !== c.work) return;
        var d = self.byId[w + ":" + suffix(c)];
        if (d !== undefined) { exact.push(d); return; }
        for (var n = c.path.length - 1; n > 0; n--) {
          d = self.byId[w + ":" + suffix({ law: c.law, path: c.path.slice(0, n) })];
          if (d !== undefined) { fallback.push(d); break; }
        }
      });
      var key = pathkey(c);
      for (var d = 0; d < self.n; d++) {
        var w = m.works[m.work[d]];
        if (m.pathkey[d].indexOf(key) === 0 && m.pathkey[d] !== key && works.indexOf(w) >= 0 && (!c.work || w === c.work)) below.push(d);
      }
    });
    below.sort(function (a, b) { return works.indexOf(m.works[m.work[a]]) - works.indexOf(m.works[m.work[b]]) || m.order[a] - m.order[b]; });
    var out = [], seen = new Set();
    [[exact, 100], [fallback, 50], [below, 10]].forEach(function (part) {
      part[0].forEach(function (d) { if (!seen.has(d)) { seen.add(d); out.push([d, part[1]]); } });
    });
    return out;
  };

  Engine.prototype.withTwins = function (ranked) {
    var m = this.meta, out = [], placed = new Set(), self = this;
    ranked.forEach(function (r) {
      if (placed.has(r[0])) return;
      out.push(r); placed.add(r[0]);
      var id = m.ids[r[0]], i = id.indexOf(":"), twin = m.twins[id.slice(0, i)];
      var t = twin ? self.byId[twin + ":" + id.slice(i + 1)] : undefined;
      if (t !== undefined && !placed.has(t)) { out.push([t, r[1], r[0]]); placed.add(t); }
    });
    return out;
  };

  // Ranked [doc, score, twinOf?] for a query; loads the postings it needs.
  Engine.prototype.rank = function (q, opts) {
    opts = opts || {};
    var self = this, limit = opts.limit || 10, work = opts.work || null;
    q = String(q).slice(0, this.p.maxQuery).replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g, " ");
    var parsed = this.parse(q);
    if (!parsed.cites.length && !parsed.groups.length) return Promise.resolve({ parsed: parsed, ranked: [] });
    return this.ensure(this.terms(parsed.groups)).then(function () {
      parsed.groups.forEach(function (g) {
        g.alts = g.alts.filter(function (a) { return a[2] !== "corpus" || self.covering(a[0]).size > 0; });
      });
      var ranked;
      if (!parsed.groups.length) ranked = self.byCitation(parsed.cites, work);
      else if (parsed.cites.length) {
        ranked = self.byWords(parsed, limit, self.allowed(work, parsed.cites));
        if (!ranked.length) ranked = self.byCitation(parsed.cites, work);
        var seen = new Set(ranked.map(function (r) { return r[0]; }));
        self.byWords(parsed, limit, self.allowed(work, null)).forEach(function (r) {
          if (!seen.has(r[0])) ranked.push(r);
        });
      } else {
        ranked = self.byWords(parsed, limit, self.allowed(work, null));
        if (!work) ranked = self.withTwins(ranked);
      }
      return { parsed: parsed, ranked: ranked.slice(0, limit) };
    });
  };

  Engine.prototype.block = function (n) {
    if (!this.blocks[n]) this.blocks[n] = this.load(this.meta.files["d" + n]);
    return this.blocks[n];
  };

  // Results as the API gives them: {id, work, citation, title, snippet, url, twinOf}.
  Engine.prototype.search = function (q, opts) {
    var self = this, size = this.meta.docBlock;
    return this.rank(q, opts).then(function (r) {
      var need = {};
      r.ranked.forEach(function (x) { need[Math.floor(x[0] / size)] = true; });
      var ns = Object.keys(need);
      return Promise.all(ns.map(function (n) { return self.block(+n); })).then(function (blocks) {
        var byN = {};
        ns.forEach(function (n, i) { byN[n] = blocks[i]; });
        return r.ranked.map(function (x) {
          var d = x[0], blk = byN[Math.floor(d / size)], k = d % size;
          var terms = [];
          r.parsed.groups.forEach(function (g) {
            g.alts.forEach(function (a) { if (self.covering(a[0]).has(d)) terms.push(a[0]); });
          });
          var text = blk.text[k] || blk.title[k] || "";
          return {
            id: self.meta.ids[d], work: self.meta.works[self.meta.work[d]], citation: blk.citation[k],
            title: blk.title[k], score: Math.round(x[1] * 10000) / 10000, url: blk.url[k],
            snippet: self.highlight(text, terms), twinOf: x[2] !== undefined ? self.meta.ids[x[2]] : null
          };
        });
      });
    });
  };

  function esc(s) {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
  }

  // HTML snippet of display text with each term in <mark>; everything else escaped.
  Engine.prototype.highlight = function (display, terms) {
    var width = this.p.snippet;
    if (!display) return "";
    var norm = this.normalize(display), taken = new Uint8Array(norm.length), spans = [];
    Array.from(new Set(terms.filter(Boolean))).sort(function (a, b) { return b.length - a.length; }).forEach(function (t) {
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

// The mahjong 台 scorer in the browser: a port of kb/rules/mahjong (tiles.py, notation.py, hand.py,
// layouts.py, patterns.py, scoring.py, settlement.py), so the calculator works on a static host and
// offline as under `kb serve`. What the rules say (patterns' names and 台, exclusions, what the text
// leaves open) is not written here: it comes from the page (kb/rules/mahjong/browser.py, the same
// Python objects the scorer reads). Every wording goes through T(), which the Traditional edition's
// build fills from this file's T("…") literals (converted by OpenCC, kb/site/rules_pages.py).
// tests/test_rules_browser_engine.py runs this file in node beside the Python scorer: the same
// answers, the same errors, in both scripts, on every worked example and on generated hands.
(function (root) {
  "use strict";
  var map = {};
  function T(s) { return Object.prototype.hasOwnProperty.call(map, s) ? map[s] : s; }

  function KbError(message) { this.message = message; }

  // --- tiles.py ---------------------------------------------------------------------------------
  var SUITS = ["m", "p", "s"], WINDS = ["E", "S", "W", "N"], DRAGONS = ["C", "F", "P"];
  var HONORS = WINDS.concat(DRAGONS);
  var TILES = [];
  SUITS.forEach(function (s) { for (var n = 1; n <= 9; n++) TILES.push(n + s); });
  TILES = TILES.concat(HONORS);
  var INDEX = {};
  TILES.forEach(function (t, i) { INDEX[t] = i; });
  var FLOWERS = ["f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8"];
  var NUMERALS = "一二三四五六七八九";
  var SUIT_NAMES = {m: "万", p: "筒", s: "索"};
  var HONOR_NAMES = {E: "东", S: "南", W: "西", N: "北", C: "中", F: "发", P: "白"};
  var FLOWER_NAMES = {};
  FLOWERS.forEach(function (f, i) { FLOWER_NAMES[f] = "春夏秋冬梅兰竹菊"[i]; });

  function has(obj, key) { return Object.prototype.hasOwnProperty.call(obj, key); }
  function tileName(code) {
    if (has(HONOR_NAMES, code)) return T(HONOR_NAMES[code]);
    if (has(FLOWER_NAMES, code)) return T(FLOWER_NAMES[code]);
    return T(NUMERALS[Number(code[0]) - 1] + SUIT_NAMES[code[1]]);
  }
  function isHonor(code) { return HONORS.indexOf(code) >= 0; }
  function isWind(code) { return WINDS.indexOf(code) >= 0; }
  function isDragon(code) { return DRAGONS.indexOf(code) >= 0; }
  function suitOf(code) { return isHonor(code) ? null : code[1]; }
  function countsOf(tiles) {
    var c = TILES.map(function () { return 0; });
    tiles.forEach(function (t) { c[INDEX[t]] += 1; });
    return c;
  }
  function chowTiles(start) {
    var n = Number(start[0]), s = start[1];
    return [n + s, (n + 1) + s, (n + 2) + s];
  }
  function isChow(tiles) {
    if (tiles.length !== 3 || tiles.some(isHonor)) return false;
    if (new Set(tiles.map(function (t) { return t[1]; })).size !== 1) return false;
    var nums = tiles.map(function (t) { return Number(t[0]); }).sort();
    return nums[1] === nums[0] + 1 && nums[2] === nums[0] + 2;
  }
  function isMeld(kind, tiles) {      // tiles.py is_meld
    if (kind === "chi") return isChow(tiles);
    return tiles.length === (kind === "pon" ? 3 : 4) && new Set(tiles).size === 1;
  }
  // every way to split counts into exactly `need` chows and pungs (pungs tried first, as tiles.py)
  function sets(counts, need, emit) {
    var i = -1;
    for (var k = 0; k < counts.length; k++) if (counts[k]) { i = k; break; }
    if (i < 0) { if (need === 0) return emit([]); return false; }
    if (need === 0) return false;
    if (counts[i] >= 3) {
      counts[i] -= 3;
      var stop = sets(counts, need - 1, function (rest) { return emit([["pung", TILES[i]]].concat(rest)); });
      counts[i] += 3;
      if (stop) return true;
    }
    if (i < 27 && i % 9 <= 6 && counts[i + 1] && counts[i + 2]) {
      counts[i]--; counts[i + 1]--; counts[i + 2]--;
      var stop2 = sets(counts, need - 1, function (rest) { return emit([["chow", TILES[i]]].concat(rest)); });
      counts[i]++; counts[i + 1]++; counts[i + 2]++;
      if (stop2) return true;
    }
    return false;
  }
  function cmp(a, b) { return a < b ? -1 : a > b ? 1 : 0; }
  function cmpSet(a, b) { return cmp(a[0], b[0]) || cmp(a[1], b[1]); }
  function cmpSets(a, b) {       // Python's tuple order
    for (var k = 0; k < Math.min(a.length, b.length); k++) { var c = cmpSet(a[k], b[k]); if (c) return c; }
    return a.length - b.length;
  }
  function decompositions(counts, nSets) {
    var found = {}, out = [], work = counts.slice();
    work.forEach(function (c, i) {
      if (c < 2) return;
      work[i] -= 2;
      sets(work, nSets, function (s) {
        s = s.slice().sort(cmpSet);
        var key = TILES[i] + "|" + s.map(function (x) { return x.join(":"); }).join(",");
        if (!has(found, key)) { found[key] = true; out.push([TILES[i], s]); }
        return false;
      });
      work[i] += 2;
    });
    return out.sort(function (a, b) { return cmp(a[0], b[0]) || cmpSets(a[1], b[1]); });
  }
  function hasDecomposition(counts, nSets) {
    var work = counts.slice();
    for (var i = 0; i < work.length; i++) {
      if (work[i] < 2) continue;
      work[i] -= 2;
      var ok = sets(work, nSets, function () { return true; });
      work[i] += 2;
      if (ok) return true;
    }
    return false;
  }
  function lilguPung(counts) {
    if (counts.reduce(function (a, b) { return a + b; }, 0) !== 17) return null;
    for (var i = 0; i < counts.length; i++) {
      if (counts[i] >= 3 && counts.every(function (n, k) { return (k === i ? n - 3 : n) % 2 === 0; })) return TILES[i];
    }
    return null;
  }
  function waits(concealed16, nSets, own16, lilgu) {
    var out = [];
    TILES.forEach(function (t, i) {
      if (own16[i] >= 4) return;
      var trial = concealed16.slice();
      trial[i] += 1;
      if (hasDecomposition(trial, nSets) || (lilgu && nSets === 5 && lilguPung(trial))) out.push(t);
    });
    return out;
  }

  // --- notation.py ------------------------------------------------------------------------------
  var Z = ["E", "S", "W", "N", "P", "F", "C"];
  var NUM = {};
  "一二三四五六七八九".split("").forEach(function (c, i) { NUM[c] = i + 1; });
  var SUIT_WORDS = {"万": "m", "萬": "m", "筒": "p", "饼": "p", "餅": "p", "索": "s", "条": "s", "條": "s"};
  var HONOURS = {"东": "E", "東": "E", "南": "S", "西": "W", "北": "N", "中": "C", "发": "F", "發": "F", "白": "P"};
  var FLOWER_CHARS = {"蘭": "f6"};
  "春夏秋冬梅兰竹菊".split("").forEach(function (c, i) { FLOWER_CHARS[c] = FLOWERS[i]; });
  var MELDS = [["ankan", "ankan"], ["chi", "chi"], ["pon", "pon"], ["kan", "kan"], ["明杠", "kan"], ["暗杠", "ankan"],
               ["暗槓", "ankan"], ["吃", "chi"], ["碰", "pon"], ["杠", "kan"], ["槓", "kan"]];   // longest first
  // notation.py FLAGS: the line's words for who won how (自摸, 杠上, 天胡 ...), read from the engine's
  // data (kb/rules/mahjong/browser.py) when engine() is called, which is before any line is read
  var FLAGS = null;
  var MAX_LINE = 400, DIGITS = "123456789";
  function meldShape(kind) {      // notation.py _MELD_SHAPES (T() at use: the wordings are set by engine())
    return {chi: T("吃须为三张同花色连续的牌"), pon: T("碰须为三张相同的牌"), kan: T("杠须为四张相同的牌"),
            ankan: T("暗杠须为四张相同的牌")}[kind];
  }
  // Python's str.split() whitespace; kb.ingest.normalise.fold_width (fullwidth digits and letters)
  var SPACE = /[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;
  function foldWidth(s) {
    return s.replace(/[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]/g, function (c) {
      return String.fromCharCode(c.charCodeAt(0) - 0xfee0);
    });
  }
  function chars(s) { return Array.from(s); }     // code points, as Python indexes a str

  function tiles(text, where) {
    var out = [], digits = [], cs = chars(text);
    for (var i = 0; i < cs.length; i++) {
      var ch = cs[i];
      if (DIGITS.indexOf(ch) >= 0) digits.push(Number(ch));
      else if ("mps".indexOf(ch) >= 0) {
        if (!digits.length) throw new KbError(where + T(": 「") + ch + T("」前没有数字（如 123") + ch + T("）"));
        digits.forEach(function (d) { out.push(d + ch); });
        digits = [];
      } else if (ch === "z") {
        if (!digits.length || digits.some(function (d) { return d > 7; })) {
          throw new KbError(where + T(": 字牌写作 1z–7z（东南西北白发中），收到 ") + digits.join("") + "z");
        }
        digits.forEach(function (d) { out.push(Z[d - 1]); });
        digits = [];
      } else if (has(NUM, ch) && i + 1 < cs.length && has(SUIT_WORDS, cs[i + 1])) {
        out.push(NUM[ch] + SUIT_WORDS[cs[i + 1]]);
        i += 1;
      } else if (has(HONOURS, ch)) {
        out.push(HONOURS[ch]);
      } else {
        throw new KbError(where + T(": 无法识别的牌「") + ch + T("」（数字+m/p/s/z，或一万、五筒、九索、东南西北中发白）"));
      }
    }
    if (digits.length) throw new KbError(where + T(": 数字 ") + digits.join("") + T(" 后缺少花色字母 m/p/s/z"));
    return out;
  }
  function flowers(text, where) {
    var out = [], rest = chars(text);
    while (rest.length) {
      if (has(FLOWER_CHARS, rest[0])) { out.push(FLOWER_CHARS[rest[0]]); rest = rest.slice(1); }
      else if (rest[0] === "f" && rest.length > 1 && /^[0-9]$/.test(rest[1])) { out.push("f" + rest[1]); rest = rest.slice(2); }
      else throw new KbError(where + T(": 无法识别的花牌「") + rest[0] + T("」（春夏秋冬梅兰竹菊 或 f1–f8）"));
    }
    return out;
  }
  function startsWith(s, p) { return s.slice(0, p.length) === p; }
  // What a section of a line is (notation.py parse_line's order): a flag word (自摸, 杠上), a
  // streak (连2), a wind (门风南), the winning tile (胡5m), a meld (with its MELDS entry), flowers,
  // or tiles (the concealed hand). parseLine reads each kind; readSections only shows them.
  function sectionKind(section) {
    var cs = chars(section), meld = null;
    for (var m = 0; m < MELDS.length; m++) if (startsWith(section, MELDS[m][0])) { meld = MELDS[m]; break; }
    if (has(FLAGS, section)) return {kind: "flag"};
    if (cs[0] === "连" || cs[0] === "連") return {kind: "streak"};
    if (["门风", "門風", "圈风", "圈風"].indexOf(cs.slice(0, 2).join("")) >= 0) return {kind: "wind"};
    if (cs[0] === "胡") return {kind: "win"};
    if (meld) return {kind: "meld", meld: meld};
    if (cs[0] === "花" || has(FLOWER_CHARS, cs[0]) || cs[0] === "f") return {kind: "flowers"};
    return {kind: "tiles"};
  }
  function flowerText(section) { var cs = chars(section); return cs[0] === "花" ? cs.slice(1).join("") : section; }
  // The calculator's tally while a hand is being tapped (碰 and one 南 so far): each section's kind
  // and tiles, a meld's shape not checked, words (自摸, 门风南) as "word"; null for a section
  // whose tiles it cannot read. parseLine is what scores; this only shows.
  function readSections(line) {
    return foldWidth(line).split(SPACE).filter(function (x) { return x !== ""; }).map(function (section) {
      var k = sectionKind(section);
      try {
        if (k.kind === "flag" || k.kind === "streak" || k.kind === "wind") return {kind: "word", tiles: []};
        if (k.kind === "win") return {kind: "win", tiles: tiles(chars(section).slice(1).join(""), "")};
        if (k.kind === "meld") return {kind: k.meld[1], tiles: tiles(section.slice(k.meld[0].length), "")};
        if (k.kind === "flowers") return {kind: "flowers", tiles: flowers(flowerText(section), "")};
        return {kind: "concealed", tiles: tiles(section, "")};
      } catch (e) {
        if (e instanceof KbError) return null;
        throw e;
      }
    });
  }
  function parseLine(line) {
    if (chars(line).length > MAX_LINE) throw new KbError(T("hand: 一行手牌过长（上限 ") + MAX_LINE + T(" 字符）"));
    line = foldWidth(line);
    var hand = {melds: [], flowers: []}, concealed = null;
    var sections = line.split(SPACE).filter(function (x) { return x !== ""; });
    sections.forEach(function (section, k) {
      var where = T("hand 第") + (k + 1) + T("段「") + section + T("」");
      var k = sectionKind(section), cs = chars(section);
      if (k.kind === "flag") {
        hand[FLAGS[section][0]] = FLAGS[section][1];
      } else if (k.kind === "streak") {
        var n = cs.slice(1).join("");
        if (!/^[0-9]+$/.test(n) || cs.length > 4) throw new KbError(where + T(": 连庄次数写作 连N（N 为 0–99）"));
        hand.dealer_streak = Number(n);
      } else if (k.kind === "wind") {
        var wind = HONOURS[cs.slice(2).join("")];
        if (WINDS.indexOf(wind) < 0) throw new KbError(where + T(": 风位须为 东南西北 之一"));
        if (cs[0] === "圈") hand.round_wind = wind; else hand.seat = WINDS.indexOf(wind) + 1;
      } else if (k.kind === "win") {
        var won = tiles(cs.slice(1).join(""), where);
        if (won.length !== 1) throw new KbError(where + T(": 胡后须为一张牌"));
        hand.winning_tile = won[0];
      } else if (k.kind === "meld") {
        var got = tiles(section.slice(k.meld[0].length), where), kind = k.meld[1];
        if (!isMeld(kind, got)) {
          throw new KbError(where + ": " + meldShape(kind) + T("（收到 ") + (got.map(tileName).join(" ") || T("没有牌")) + T("）"));
        }
        hand.melds.push({type: kind, tiles: got});
      } else if (k.kind === "flowers") {
        hand.flowers = hand.flowers.concat(flowers(flowerText(section), where));
      } else if (concealed === null) {
        concealed = tiles(section, where);
      } else {
        tiles(section, where);      // a word it does not know (自模) is named as such first
        throw new KbError(where + T(": 暗牌只能写一段（副露请加 吃/碰/杠/暗杠）"));
      }
    });
    if (!concealed || !concealed.length) throw new KbError(T("hand: 没有暗牌（如 123m456p789s11z）"));
    hand.concealed = concealed;
    if (!has(hand, "winning_tile")) {
      hand.winning_tile = concealed[concealed.length - 1];
      return hand;
    }
    var count = concealed.length + 3 * hand.melds.length;
    if (count === 16) concealed.push(hand.winning_tile);     // 胡X: the tile that completed the hand, added
    else if (count !== 17) {                                  // 17: the concealed tiles hold it, 胡X names it
      throw new KbError(T("hand: 牌数不对：胡") + tileName(hand.winning_tile) + T("之外有 ") + count +
                        T(" 张（杠按 3 张计，不含花牌）；写 胡X 时，暗牌与副露写胡牌前的 16 张，胡X 为胡的那张（第 17 张），如 123m456p789s5566z 胡6z 碰111s"));
    }
    return hand;
  }

  // --- hand.py ----------------------------------------------------------------------------------
  var WORK = "twmj16";
  function clause(n) { return WORK + ":patterns." + n; }
  var COUNTING = WORK + ":counting";
  var MELD_TYPES = ["chi", "pon", "kan", "ankan"], MAX_STREAK = 99;
  var BOOL_FIELDS = ["self_drawn", "dealer", "from_dealer", "after_kan", "last_tile", "robbing_kan", "at_deal", "lilgu"];
  var CHOICES = [["round_wind", WINDS], ["declared", [null, "天听", "地听"]], ["timing", [null, "天胡", "地胡", "人胡"]],
                 ["flower_win", [null, "八仙过海", "七抢一"]], ["rob_case", [1, 2]]];
  var KNOWN = ["concealed", "melds", "flowers", "winning_tile", "seat", "dealer_streak", "note"].concat(BOOL_FIELDS)
    .concat(CHOICES.map(function (c) { return c[0]; }));
  function fail(zh, en) { return new KbError(zh + " / " + en); }
  // Python's repr() of the values a line can give (ASCII codes, numbers, booleans, None)
  function repr(v) {
    if (v === null || v === undefined) return "None";
    if (v === true) return "True";
    if (v === false) return "False";
    if (typeof v === "string") return v.indexOf("'") >= 0 && v.indexOf('"') < 0 ? '"' + v + '"' : "'" + v.replace(/\\/g, "\\\\").replace(/'/g, "\\'") + "'";
    return String(v);
  }
  function shown(v) { return v === null ? "null" : String(v); }
  function isInt(v) { return typeof v === "number" && Number.isInteger(v); }

  function tileList(value, where) {
    if (!Array.isArray(value)) throw fail(T("字段 ") + where + T(" 须为牌码列表"), "field " + where + " must be a list of tile codes");
    value.forEach(function (t, k) {
      if (typeof t !== "string") throw fail(T("字段 ") + where + "[" + k + T("] 须为字符串牌码"), "field " + where + "[" + k + "] must be a tile-code string");
      if (!has(INDEX, t)) {
        if (FLOWERS.indexOf(t) >= 0) {
          throw fail(T("花牌 ") + t + T(" 不得并入手牌（") + where + "[" + k + T("]），应列入 flowers"),
                     "flower " + t + " in " + where + "[" + k + "]; list it under flowers");
        }
        throw fail(T("不存在的牌码 ") + repr(t) + T("（") + where + "[" + k + T("]）"), "impossible tile code " + repr(t) + " in " + where + "[" + k + "]");
      }
    });
    return value.slice();
  }
  function parseHand(data) {
    if (data === null || typeof data !== "object" || Array.isArray(data)) throw fail(T("手牌须为 JSON 对象"), "hand must be a JSON object");
    Object.keys(data).forEach(function (key) {
      if (KNOWN.indexOf(key) < 0) throw fail(T("未知字段 ") + key, "unknown field: " + key);
    });
    ["concealed", "winning_tile"].forEach(function (key) {
      if (!has(data, key)) throw fail(T("缺少字段 ") + key, "missing field: " + key);
    });
    var concealed = tileList(data.concealed, "concealed"), win = data.winning_tile;
    if (typeof win !== "string") throw fail(T("字段 winning_tile 须为字符串牌码"), "field winning_tile must be a tile-code string");
    if (!has(INDEX, win)) throw fail(T("不存在的牌码 ") + repr(win) + T("（winning_tile）"), "impossible tile code " + repr(win) + " in winning_tile");
    var meldsRaw = has(data, "melds") ? data.melds : [];
    if (!Array.isArray(meldsRaw)) throw fail(T("字段 melds 须为列表"), "field melds must be a list");
    var melds = meldsRaw.map(function (m, k) {
      var where = "melds[" + k + "]";
      if (m === null || typeof m !== "object" || Array.isArray(m) || Object.keys(m).sort().join() !== "tiles,type") {
        throw fail(T("字段 ") + where + T(" 须为含 type 与 tiles 的对象"), "field " + where + " must be an object with type and tiles");
      }
      if (MELD_TYPES.indexOf(m.type) < 0) throw fail(T("字段 ") + where + T(".type 须为 chi/pon/kan/ankan"), "field " + where + ".type must be chi, pon, kan or ankan");
      var ts = tileList(m.tiles, where + ".tiles");
      if (!isMeld(m.type, ts)) {
        var kind = {chi: T("三张同花色连续牌"), pon: T("三张相同牌")}[m.type] || T("四张相同牌");
        throw fail(T("字段 ") + where + T(".tiles 须为") + kind, "field " + where + ".tiles is not a valid " + m.type);
      }
      return {type: m.type, tiles: ts};
    });
    var fl = has(data, "flowers") ? data.flowers : [];
    if (!Array.isArray(fl)) throw fail(T("字段 flowers 须为 f1–f8 的列表"), "field flowers must be a list of f1-f8");
    fl.forEach(function (f, k) {
      if (typeof f !== "string" || FLOWERS.indexOf(f) < 0) {
        throw fail(T("不存在的花牌码 ") + repr(f) + T("（flowers[") + k + T("]），应为 f1–f8"), "impossible flower code " + repr(f) + " in flowers[" + k + "] (f1-f8)");
      }
    });
    if (new Set(fl).size !== fl.length) throw fail(T("字段 flowers 有重复的花牌"), "field flowers holds a flower twice");
    var h = {concealed: concealed, melds: melds, flowers: fl.slice(), winning_tile: win, self_drawn: false, seat: 1,
             round_wind: "E", dealer: false, from_dealer: false, dealer_streak: 0, after_kan: false, last_tile: false,
             robbing_kan: false, declared: null, timing: null, flower_win: null, rob_case: 1, at_deal: false, lilgu: true};
    BOOL_FIELDS.forEach(function (key) {
      if (has(data, key)) {
        if (typeof data[key] !== "boolean") throw fail(T("字段 ") + key + T(" 须为 true 或 false"), "field " + key + " must be true or false");
        h[key] = data[key];
      }
    });
    CHOICES.forEach(function (c) {
      var key = c[0];
      if (!has(data, key)) return;
      var val = data[key];
      if (c[1].indexOf(val) < 0) {
        var all = c[1].map(shown).join("、");
        throw fail(T("字段 ") + key + T(" 须为 ") + all + T(" 之一（得到 ") + repr(val) + T("）"), "field " + key + " must be one of " + all + " (got " + repr(val) + ")");
      }
      h[key] = val;
    });
    var seat = has(data, "seat") ? data.seat : 1;
    if (!isInt(seat) || seat < 1 || seat > 4) throw fail(T("字段 seat 须为 1–4 的整数（得到 ") + repr(seat) + T("）"), "field seat must be an integer 1-4 (got " + repr(seat) + ")");
    var streak = has(data, "dealer_streak") ? data.dealer_streak : 0;
    if (!isInt(streak) || streak < 0 || streak > MAX_STREAK) {
      throw fail(T("字段 dealer_streak 须为 0–") + MAX_STREAK + T(" 的整数（得到 ") + repr(streak) + T("）"),
                 "field dealer_streak must be an integer 0-" + MAX_STREAK + " (got " + repr(streak) + ")");
    }
    if (has(data, "note") && typeof data.note !== "string") throw fail(T("字段 note 须为字符串"), "field note must be a string");
    h.seat = seat; h.dealer_streak = streak;
    var count = concealed.length + 3 * melds.length;
    if (count !== 17) {
      throw fail(T("牌数不对：") + count + T(" 张（应为 17 张，杠按 3 张计，不含花牌）"),
                 "wrong tile count: " + count + " (need 17; a kan counts as 3, flowers not counted)");
    }
    var every = concealed.concat.apply(concealed, melds.map(function (m) { return m.tiles; })), n = {};
    every.forEach(function (t) { n[t] = (n[t] || 0) + 1; });
    var over = Object.keys(n).filter(function (t) { return n[t] > 4; }).sort(function (a, b) { return INDEX[a] - INDEX[b]; });
    if (over.length) {
      var t = over[0];
      throw fail(T("同一张牌超过 4 张：") + tileName(t) + T("（") + t + T("）") + n[t] + T(" 张"), "more than 4 of tile " + t + ": " + n[t]);
    }
    if (concealed.indexOf(win) < 0) {
      throw fail("winning_tile " + win + T(" 不在 concealed 中（concealed 须含胡牌那张）"),
                 "field winning_tile " + win + " is not in concealed (concealed must include it)");
    }
    checkSituation(h, has(data, "rob_case"));
    return h;
  }
  function openMelds(h) { return h.melds.filter(function (m) { return m.type !== "ankan"; }); }
  function checkSituation(h, robGiven) {
    function bad(zh, en) { throw fail(zh, en); }
    if (h.after_kan && !h.self_drawn) bad(T("杠上开花须自摸"), "field after_kan needs self_drawn true");
    if (h.after_kan && !h.flowers.length && !h.melds.some(function (m) { return m.type === "kan" || m.type === "ankan"; })) {
      bad(T("杠上开花须有杠或花牌（补上的牌才是杠上的牌）"), "field after_kan needs a kan, an ankan or a flower");
    }
    if (h.robbing_kan && h.self_drawn) bad(T("抢杠胡不能是自摸"), "field robbing_kan cannot go with self_drawn");
    if (h.dealer && h.from_dealer) bad(T("庄付只用于闲家胡牌（胡牌者不能是庄家）"), "field from_dealer is for a non-dealer's win only");
    if (h.declared === "天听" && h.dealer) bad(T("天听只限闲家"), "field declared 天听 is for a non-dealer only");
    if (h.declared && openMelds(h).length) bad(T(h.declared) + T("须门清（不得有吃、碰、明杠）"), "field declared " + h.declared + " needs no chi/pon/kan melds");
    if (h.timing === "天胡" && !(h.dealer && h.self_drawn && h.declared === null)) bad(T("天胡须是庄家自摸，且未报听"), "field timing 天胡 needs dealer and self_drawn true, no declared");
    if (h.timing === "地胡" && h.dealer) bad(T("地胡只限闲家"), "field timing 地胡 is for a non-dealer only");
    if ((h.timing === "天胡" || h.timing === "地胡") && h.melds.length) bad(T(h.timing) + T("时不得有副露或暗杠"), "field timing " + h.timing + " needs no melds");
    if (h.timing === "人胡" && h.declared !== "地听") bad(T("人胡须先报地听"), "field timing 人胡 needs declared 地听");
    if (h.flower_win && h.flowers.length !== 8) {
      bad(T(h.flower_win) + T("须持全部 8 张花牌（只有 ") + h.flowers.length + T(" 张）"),
          "field flower_win needs all 8 flowers (flowers has " + h.flowers.length + ")");
    }
    if (robGiven && h.flower_win !== "七抢一") bad(T("七抢一的情形只用于七抢一"), "field rob_case is for flower_win 七抢一 only");
    if (h.at_deal && !h.flower_win) bad(T("配牌花胡须是八仙过海或七抢一"), "field at_deal is for a flower win only");
  }

  // --- layouts.py -------------------------------------------------------------------------------
  function group(kind, tile, source, concealed, winning) {
    return {kind: kind, tile: tile, source: source, concealed: concealed, winning: !!winning};
  }
  function groupTiles(g) {
    if (g.kind === "chow") return chowTiles(g.tile);
    return Array(g.kind === "kong" ? 4 : 3).fill(g.tile);
  }
  function layoutTiles(lay) {
    return lay.hand.concealed.concat.apply(lay.hand.concealed, lay.hand.melds.map(function (m) { return m.tiles; }));
  }
  function pungs(lay) { return lay.sets.filter(function (g) { return g.kind === "pung" || g.kind === "kong"; }); }
  function setTiles(s) { return s[0] === "chow" ? chowTiles(s[1]) : [s[1], s[1], s[1]]; }
  function layouts(hand) {
    var concealed = countsOf(hand.concealed), nSets = 5 - hand.melds.length, w = hand.winning_tile, out = [];
    var fixed = hand.melds.map(function (m) {
      if (m.type === "chi") return group("chow", m.tiles.slice().sort(function (a, b) { return INDEX[a] - INDEX[b]; })[0], "chi", false);
      return group(m.type === "pon" ? "pung" : "kong", m.tiles[0], m.type, m.type === "ankan");
    });
    decompositions(concealed, nSets).forEach(function (d) {
      var pair = d[0], ss = d[1], seen = {}, places = [];
      ss.forEach(function (s) { if (setTiles(s).indexOf(w) >= 0 && !seen[s.join(":")]) { seen[s.join(":")] = true; places.push(s); } });
      places.sort(cmpSet);
      if (pair === w) places.unshift("pair");
      places.forEach(function (place) {
        var groups = fixed.slice();
        ss.forEach(function (s) {
          var won = place !== "pair" && place[0] === s[0] && place[1] === s[1];
          groups.push(group(s[0], s[1], "hand", s[0] === "pung" && (hand.self_drawn || !won), won));
        });
        out.push({hand: hand, form: "standard", sets: groups, pairs: [pair], waits: []});
      });
    });
    var pung = hand.lilgu && !hand.melds.length ? lilguPung(concealed) : null;
    if (pung) {
      var rest = concealed.slice(), pairs = [];
      rest[INDEX[pung]] -= 3;
      TILES.forEach(function (t, i) { for (var k = 0; k < Math.floor(rest[i] / 2); k++) pairs.push(t); });
      var inPung = w === pung && rest[INDEX[w]] < 2;
      out.push({hand: hand, form: "lilgu", sets: [group("pung", pung, "hand", hand.self_drawn || !inPung, inPung)], pairs: pairs, waits: []});
    }
    return out;
  }
  function handWaits(hand) {
    var concealed = countsOf(hand.concealed);
    concealed[INDEX[hand.winning_tile]] -= 1;
    var own = concealed.slice();
    hand.melds.forEach(function (m) { m.tiles.forEach(function (t) { own[INDEX[t]] += 1; }); });
    return waits(concealed, 5 - hand.melds.length, own, hand.lilgu && !hand.melds.length);
  }

  // --- patterns.py ------------------------------------------------------------------------------
  function Engine(data) {
    this.data = data;
  }
  function suits(lay) {
    var out = new Set();
    layoutTiles(lay).forEach(function (t) { var s = suitOf(t); if (s) out.add(s); });
    return out;
  }
  Engine.prototype.name = function (n) { return this.data.patterns[n][0]; };
  Engine.prototype.tai = function (n) { return this.data.patterns[n][1]; };
  Engine.prototype.item = function (n, name, tai, cl, detail) {
    return {number: n, name: name, tai: tai, clause: cl, detail: detail || ""};
  };
  Engine.prototype.one = function (n, cond, detail) {
    return cond ? [this.item(n, this.name(n), this.tai(n), clause(n), detail)] : [];
  };
  Engine.prototype.award = function (n, lay) {
    var self = this, h = lay.hand, std = lay.form === "standard", all = layoutTiles(lay);
    var windPungs = pungs(lay).filter(function (g) { return isWind(g.tile); });
    var dragonPungs = pungs(lay).filter(function (g) { return isDragon(g.tile); });
    var concealedPungs = pungs(lay).filter(function (g) { return g.concealed; }).length;
    switch (n) {
      case 1: return windPungs.map(function (g) {
        var parts = [[T("合开门序"), WINDS[h.seat - 1]], [T("合圈序"), h.round_wind]]
          .filter(function (p) { return g.tile === p[1]; }).map(function (p) { return p[0]; });
        return parts.length ? self.item(1, self.name(1), parts.length, clause(1), tileName(g.tile) + T("坎：") + parts.join(T("、"))) : null;
      }).filter(Boolean);
      case 2: return dragonPungs.map(function (g) { return self.item(2, self.name(2), self.tai(2), clause(2), tileName(g.tile) + T("坎")); });
      case 3: return this.one(3, !openMelds(h).length);
      case 4: return this.one(4, !openMelds(h).length && h.self_drawn);
      case 5: return this.one(5, h.concealed.length === 2 && h.melds.every(function (m) { return m.type !== "ankan"; }) && !h.self_drawn,
                              T("五副吃碰外露，单钓胡铳"));
      case 6: return this.one(6, h.concealed.length === 2 && h.self_drawn && openMelds(h).length > 0, T("暗牌剩 1 张并自摸"));
      case 7: return this.one(7, std && lay.sets.every(function (g) { return g.kind === "chow"; }) && !all.some(isHonor) &&
                              !h.flowers.length && lay.waits.length >= 2 && !h.self_drawn);
      case 8: return this.one(8, std && pungs(lay).length === 5);
      case 9: return this.one(9, h.dealer || h.from_dealer, h.dealer ? T("庄家胡牌") : T("庄家付"));
      case 10: {
        var s = h.dealer_streak;
        return s && (h.dealer || h.from_dealer)
          ? [this.item(10, T("连") + s + T("拉") + s, 2 * s, clause(10), T("庄家连N闲家一律拉N，2N台"))] : [];
      }
      case 11: return this.one(11, lay.waits.length === 1, lay.waits.length === 1 ? T("只听") + tileName(lay.waits[0]) : "");
      case 12: return this.one(12, h.robbing_kan);
      case 13: return this.one(13, all.every(isHonor));
      case 14: return this.one(14, suits(lay).size === 1 && !all.some(isHonor));
      case 15: return this.one(15, suits(lay).size === 1 && all.some(isHonor));
      case 16: return this.one(16, concealedPungs === 3);
      case 17: return this.one(17, concealedPungs === 4);
      case 18: return this.one(18, concealedPungs === 5);
      case 19: return this.one(19, windPungs.length === 4);
      case 20: return this.one(20, std && windPungs.length === 3 && isWind(lay.pairs[0]));
      case 21: return this.one(21, dragonPungs.length === 3);
      case 22: return this.one(22, std && dragonPungs.length === 2 && isDragon(lay.pairs[0]));
      case 23: return this.one(23, h.self_drawn);
      case 24: return this.one(24, h.after_kan);
      case 25: return this.one(25, h.last_tile && h.self_drawn);
      case 26: {
        var held = new Set(h.flowers);
        if (held.size === 8) return [this.item(26, T("满花"), 8, clause(26), T("持满花（8 张花牌）"))];
        var out = [];
        [[FLOWERS.slice(0, 4), T("春夏秋冬")], [FLOWERS.slice(4), T("梅兰竹菊")]].forEach(function (gl) {
          if (gl[0].every(function (f) { return held.has(f); })) out.push(self.item(26, T("花杠"), 2, clause(26), gl[1] + T("同色花杠")));
          else if (held.has(gl[0][h.seat - 1])) out.push(self.item(26, self.name(26), self.tai(26), clause(26), tileName(gl[0][h.seat - 1]) + T("合开门序")));
        });
        return out;
      }
      case 27: return this.one(27, !!h.flower_win, T("视同正式之胡牌"));
      case 28: return this.one(28, h.at_deal, T("起手配牌得花，补牌后摸第 1 张时胡"));
      case 29: return this.one(29, h.flower_win === "八仙过海");
      case 30: return h.flower_win === "七抢一"
        ? [this.item(30, this.name(30), this.tai(30), clause("30." + h.rob_case), T("第 ") + h.rob_case + T(" 种方式"))] : [];
      case 31: return this.one(31, h.declared === "天听");
      case 32: return this.one(32, h.declared === "地听");
      case 33: return this.one(33, h.timing === "天胡");
      case 34: return this.one(34, h.timing === "地胡");
      case 35: return this.one(35, h.timing === "人胡");
      case 36: return this.one(36, lay.form === "lilgu");
    }
    throw new Error("no predicate for pattern " + n);
  };

  // --- scoring.py -------------------------------------------------------------------------------
  Engine.prototype.judge = function (lay) {
    var self = this, items = [], excluded = [];
    this.data.order.forEach(function (p) {      // [number, hand_needed]
      if (lay.form !== "flower" || !p[1]) items = items.concat(self.award(p[0], lay));
    });
    this.data.exclusions.forEach(function (rule) {     // [by, drops, why, clause]
      if (items.some(function (i) { return i.number === rule[0]; })) {
        items.filter(function (i) { return i.number === rule[1]; }).forEach(function (it) {
          items.splice(items.indexOf(it), 1);
          excluded.push({name: it.name, tai: it.tai, why: rule[2], clause: rule[3]});
        });
      }
    });
    var big = [19, 20, 21, 22];
    if (items.some(function (i) { return i.number === 13; }) && items.some(function (i) { return big.indexOf(i.number) >= 0; })) {
      var withs = items.filter(function (i) { return big.indexOf(i.number) >= 0; }).map(function (i) { return i.name; }).join(T("、"));
      var pos = items.findIndex(function (i) { return i.number === 13; }) + 1;
      items.splice(pos, 0, this.item(13, this.data.adjust, -4, clause(13), T("字一色含") + withs + T("，累计后减除 4 台")));
    }
    return {layout: lay, items: items, excluded: excluded,
            total: items.reduce(function (a, i) { return a + i.tai; }, 0)};
  };
  function itemJson(i) {
    var out = {name: i.name, tai: i.tai, clause: i.clause};
    if (i.detail) out.detail = i.detail;
    return out;
  }
  Engine.prototype.groupsJson = function (lay) {
    var d = this.data, out = lay.sets.map(function (g) {
      return {kind: d.kinds[g.kind], tiles: groupTiles(g), source: g.source, concealed: g.concealed, winning: g.winning};
    });
    lay.pairs.forEach(function (p) {
      out.push({kind: lay.form === "standard" ? d.pair[0] : d.pair[1], tiles: [p, p], source: "hand", concealed: true, winning: false});
    });
    return out;
  };
  Engine.prototype.score = function (data) {
    var h = parseHand(data), lays = layouts(h);
    if (h.flower_win && !(h.after_kan && lays.length)) lays = [{hand: h, form: "flower", sets: [], pairs: [], waits: []}];
    if (!lays.length) throw fail(T("不成胡：无法组成五副顺子/坎子/杠子与一对将"), "not a winning hand: no decomposition into five sets and a pair");
    var w = lays[0].form !== "flower" ? handWaits(h) : [];
    lays.forEach(function (lay) { lay.waits = w; });
    var best = null, self = this;
    lays.forEach(function (lay) { var s = self.judge(lay); if (!best || s.total > best.total) best = s; });
    var excluded = best.excluded.slice();
    if (h.last_tile && !h.self_drawn) {      // 河底: the last discard (scoring.py LAST_DISCARD)
      excluded.push({name: this.name(25), tai: this.tai(25), why: this.data.last_discard, clause: clause(25)});
    }
    return {total: best.total, items: best.items.map(itemJson), excluded: excluded,
            form: this.data.forms[best.layout.form], groups: this.groupsJson(best.layout), waits: w.slice()};
  };

  // --- settlement.py ----------------------------------------------------------------------------
  var OTHERS = ["下家", "对家", "上家"], SEATS = ["本家"].concat(OTHERS);
  var WINNER_SEAT = {"本家": 1, "上家": 2, "对家": 3, "下家": 4};     // settlement.py: the dealer is 东
  function cid(local) { return WORK + ":" + local; }
  function seat(value, field, choices) {
    if (typeof value !== "string" || choices.indexOf(value) < 0) {
      throw new KbError(field + T(": 应为 ") + choices.map(T).join(T("、")) + T(" 之一，收到 ") + repr(value));
    }
    return value;
  }
  // settlement.py _dealer: who deals, and what was assumed when it was not given
  var ASSUMED_DEALER = "下家", WIND_NAMES = "东南西北";
  function dealerOf(dealer, hand) {
    if (dealer !== null && dealer !== undefined) return [seat(dealer, "dealer", SEATS), ""];
    var s = has(hand, "seat") ? hand.seat : null;
    if (isInt(s) && s >= 1 && s <= 4) {
      var deal = Object.keys(WINNER_SEAT).filter(function (d) { return WINNER_SEAT[d] === s; })[0];
      return [deal, T("未给出庄家：由本家门风") + T(WIND_NAMES[s - 1]) + T("推得") + T(deal) + T("为庄家。")];
    }
    return [ASSUMED_DEALER, T("未给出庄家：按") + T(ASSUMED_DEALER) + T("为庄家计（本家门风") + T(WIND_NAMES[WINNER_SEAT[ASSUMED_DEALER] - 1]) +
            T("）；庄家若是别家，作庄与连庄的台数改由庄家收付。")];
  }
  Engine.prototype.settle = function (hand, dealer, discarder, streakShown) {
    if (hand === null || typeof hand !== "object" || Array.isArray(hand)) throw new KbError(T("hand: 应为手牌 JSON 对象"));
    ["dealer", "from_dealer"].forEach(function (key) {
      if (has(hand, key)) throw new KbError("hand." + key + T(": 结算时由 dealer 字段决定，请勿在手牌中给出"));
    });
    var dealt = dealerOf(dealer, hand), deal = dealt[0], assumed = dealt[1], selfDrawn = hand.self_drawn === true;
    var flower = has(hand, "flower_win") ? hand.flower_win : null, rob = has(hand, "rob_case") ? hand.rob_case : 1;
    if (discarder === undefined) discarder = null;
    if (flower === "八仙过海") {
      if (discarder !== null) throw new KbError(T("discarder: 八仙过海三家赔付（patterns.29），没有放铳者"));
      selfDrawn = true;
    }
    if (discarder === null && !selfDrawn && flower !== "七抢一") throw new KbError(T("discarder: 非自摸须给出放铳者（下家、对家或上家）"));
    if (discarder !== null && selfDrawn && flower !== "七抢一") throw new KbError(T("discarder: 自摸时没有放铳者"));
    var payerOne = discarder === null ? null : seat(discarder, "discarder", OTHERS);
    if (flower === "七抢一" && payerOne === null) throw new KbError(T("discarder: 七抢一须给出被抢花者（下家、对家或上家）"));
    var streak = has(hand, "dealer_streak") ? hand.dealer_streak : 0;
    var shownN = streakShown === undefined || streakShown === null ? streak : streakShown;
    if (!isInt(shownN) || shownN < 0 || shownN > MAX_STREAK) {
      throw new KbError(T("streak_shown: 应为 0–") + MAX_STREAK + T(" 的整数，收到 ") + repr(shownN));
    }
    var seatN = WINNER_SEAT[deal];
    if (has(hand, "seat") && hand.seat !== seatN) {
      var given = hand.seat;
      var shownSeat = isInt(given) && given >= 1 && given <= 4 ? T("东南西北"[given - 1]) + T("（开门序 ") + given + T("）") : repr(given);
      throw new KbError("hand.seat: " + T(deal) + T("为庄家时，本家门风为") + T("东南西北"[seatN - 1]) + T("（开门序 ") + seatN +
                        T("），手牌却写") + shownSeat);
    }
    var base = Object.assign({}, hand, {dealer: deal === "本家", seat: seatN});
    var result = this.score(base);
    var dealerItems = [cid("patterns.9"), cid("patterns.10")];
    var plain = result.items.filter(function (i) { return dealerItems.indexOf(i.clause) < 0; })
      .reduce(function (a, i) { return a + i.tai; }, 0);
    var clauses = [];      // 作庄 and 连庄 (patterns 9, 10) are added below where a payment counts them
    if (flower === "七抢一") clauses.push(cid("patterns.30." + rob));
    else if (flower === "八仙过海") clauses.push(cid("patterns.29"));
    var payers, how;
    if (selfDrawn && !(flower === "七抢一" && rob === 1)) {
      payers = OTHERS.slice();
      how = flower === "八仙过海" ? T("八仙过海，三家赔付") : T("自摸，三家各付");
    } else {
      payers = [payerOne];
      how = flower !== "七抢一" ? T(payerOne) + T("放铳，独付") : T("被抢花者") + T(payerOne) + T("赔付");
    }
    var split = flower === "七抢一" && rob === 2 && selfDrawn, flowerTai = split ? 8 : 0;
    var payments = payers.map(function (p) {
      var dealerSide = deal === "本家" || deal === p;
      var n = deal === "本家" ? Math.min(streak, shownN) : Math.max(streak, shownN);
      var extra = dealerSide ? 1 + 2 * n : 0, tai = plain - flowerTai + extra;
      var parts = [T("牌面 ") + (plain - flowerTai) + T(" 台")];
      if (dealerSide) parts.push(T("作庄 1 台") + (n ? T(" + 连") + n + T("拉") + n + " " + 2 * n + T(" 台") : ""));
      if (split && p === payerOne) { tai += flowerTai; parts.push(T("七抢一花牌 ") + flowerTai + T(" 台（被抢花者单独计）")); }
      return {payer: T(p), to: T("本家"), di: 1, tai: tai, detail: parts.join(" + ")};
    });
    var dealerPaid = payers.filter(function (p) { return deal === "本家" || deal === p; }).length > 0;
    var nPaid = dealerPaid ? (deal === "本家" ? Math.min(streak, shownN) : Math.max(streak, shownN)) : 0;
    clauses = (dealerPaid ? [cid("patterns.9")] : []).concat(nPaid ? [cid("patterns.10")] : [], clauses);
    var lines = payments.map(function (x) { return x.payer + T("付 1 底 ") + x.tai + T(" 台（") + x.detail + T("）"); }).join(T("；"));
    var who = deal === "本家" ? T("本家为庄家") : T(deal) + T("为庄家");
    var text = assumed + who + T("，") + how + T("：") + lines + T("。");
    if (streak !== shownN) {
      text += T("连庄示记 ") + shownN + T(" 与实际 ") + streak + T(" 不符：庄家收以低者、付以高者（连庄示记）。");
      clauses.push(cid("streak-marker"));
    }
    if (payerOne !== null && flower !== "七抢一") clauses.push(cid("deal-in"));
    return {payments: payments, total_tai: result.total, plain_tai: plain, clauses: clauses, explanation: text,
            silent: this.data.silent.slice(), assumed: assumed ? [assumed] : [], score: result};
  };

  // The page's (and the tests') entry: a hand (one line of notation, or a hand object) with who
  // deals and who discarded, as POST /api/rules/mahjong/settle takes it (kb/rules/api.py _settle);
  // the answer, or {error: one line}.
  var BODY_KEYS = ["hand", "dealer", "discarder", "streak_shown"];
  Engine.prototype.settleBody = function (body) {
    try {
      if (body === null || typeof body !== "object" || Array.isArray(body) ||
          Object.keys(body).some(function (k) { return BODY_KEYS.indexOf(k) < 0; }) || !has(body, "hand")) {
        throw new KbError(T("body: 应为 JSON 对象，含 hand（可选 dealer、discarder、streak_shown；未给 dealer 时按门风推定，否则按下家为庄）"));
      }
      var hand = typeof body.hand === "string" ? parseLine(body.hand) : body.hand;
      return this.settle(hand, has(body, "dealer") ? body.dealer : null, has(body, "discarder") ? body.discarder : null,
                         has(body, "streak_shown") ? body.streak_shown : null);
    } catch (e) {
      if (e instanceof KbError) return {error: e.message};
      throw e;
    }
  };

  var api = {
    // data: kb/rules/mahjong/browser.py engine_data(); t: the edition's wordings ({} for Simplified)
    engine: function (data, t) { map = t || {}; FLAGS = data.flags; return new Engine(data); },
    parseLine: function (line) { return parseLine(line); },
    readSections: function (line) { return readSections(line); },
    tileName: function (code) { return tileName(code); },
    KbError: KbError
  };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.KbMahjong = api;
})(typeof window !== "undefined" ? window : this);

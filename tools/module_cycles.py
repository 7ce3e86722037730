#!/usr/bin/env python3
"""Find cycles between the modules of Rust crates.

A module *uses* another when it names an item defined there, through a `use`
declaration or a path in code (`crate::a::B`, `super::B`, `self::c::D`).
Re-exports (`pub use a::B;` in a parent) are followed to the module that
defines the item, so a `mod.rs` that only declares and re-exports its children
adds no edge of its own. `#[cfg(test)] mod ... { }` blocks are left out: unit
tests may use anything in their file's module tree.

Prints every cycle found (as `a -> b -> a`) and exits 1 if there is one, 0 if
the module graph of every crate given is acyclic.

Examples:
    tools/module_cycles.py sim-core traces configs validate reports banksim
    tools/module_cycles.py --edges banksim      # also print the module graph
"""

import argparse
import os
import re
import sys

DEF_RE = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|unsafe|const|extern\s+\"C\")\s+)*"
    r"(?:fn|struct|enum|trait|type|const|static|union)\s+([A-Za-z_]\w*)",
    re.M,
)
MACRO_RE = re.compile(r"^\s*macro_rules!\s*([A-Za-z_]\w*)", re.M)
MOD_DECL_RE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.M)
USE_RE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.S)
PATH_RE = re.compile(r"\b((?:crate|super|self)(?:::[A-Za-z_]\w*)+)")


TOKEN_RE = re.compile(
    r'/\*[\s\S]*?\*/|//[^\n]*|(?<!\w)r(#*)"[\s\S]*?"\1|b?"(?:\\[\s\S]|[^"\\])*"'
    r"|b?'(?:\\.|[^'\\])'"
)


def strip_comments_and_strings(src):
    """Comments removed, string and char literals emptied, in one left-to-right pass."""
    return TOKEN_RE.sub(lambda m: "" if m.group(0).startswith("/") else '""', src)


def drop_test_blocks(src):
    """Removes `#[cfg(test)] mod name { ... }` blocks (brace matched)."""
    out, i = [], 0
    pat = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{")
    while True:
        m = pat.search(src, i)
        if not m:
            out.append(src[i:])
            return "".join(out)
        out.append(src[i : m.start()])
        depth, j = 1, m.end()
        while j < len(src) and depth:
            depth += {"{": 1, "}": -1}.get(src[j], 0)
            j += 1
        i = j


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e'] (aliases dropped)."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)

    def split_top(s):
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += ch == "{"
            depth -= ch == "}"
            cur += ch
        if cur:
            parts.append(cur)
        return parts

    def walk(prefix, s):
        if "{" in s and s.endswith("}"):
            head, body = s.split("{", 1)
            res = []
            for p in split_top(body[:-1]):
                res += walk(prefix + head, p)
            return res
        return [prefix + s]

    return [p for p in walk("", tree) if p]


class Crate:
    def __init__(self, root):
        self.src = os.path.join(root, "src")
        self.modules = {}  # "a::b" -> file text (comments stripped)
        lib = os.path.join(self.src, "lib.rs")
        main = os.path.join(self.src, "main.rs")
        self._load("", lib if os.path.exists(lib) else main)
        self.defs = {m: set(DEF_RE.findall(t)) | set(MACRO_RE.findall(t)) for m, t in self.modules.items()}
        self.reexports = {m: self._reexports(m, t) for m, t in self.modules.items()}

    def _load(self, modpath, path):
        if not os.path.exists(path):
            return
        with open(path, encoding="utf-8") as f:
            text = drop_test_blocks(strip_comments_and_strings(f.read()))
        self.modules[modpath] = text
        base = os.path.dirname(path)
        stem = os.path.basename(path)[:-3]
        if stem not in ("lib", "main", "mod"):
            base = os.path.join(base, stem)
        for child in MOD_DECL_RE.findall(text):
            sub = f"{modpath}::{child}" if modpath else child
            for cand in (os.path.join(base, child + ".rs"), os.path.join(base, child, "mod.rs")):
                if os.path.exists(cand):
                    self._load(sub, cand)
                    break

    def _reexports(self, mod, text):
        out = {}
        for vis, tree in USE_RE.findall(text):
            if not vis:
                continue
            for p in expand_use(tree):
                name = p.rsplit("::", 1)[-1]
                out[name] = p
        return out

    def absolute(self, mod, path):
        segs = path.split("::")
        cur = mod.split("::") if mod else []
        if segs[0] == "crate":
            cur, segs = [], segs[1:]
        elif segs[0] in ("self", "super"):
            while segs and segs[0] in ("self", "super"):
                if segs[0] == "super":
                    cur = cur[:-1]
                segs = segs[1:]
        else:
            first = "::".join(cur + [segs[0]])
            if first not in self.modules:
                return None  # an external crate or a local name
        return cur, segs

    def resolve(self, mod, path, depth=0):
        """The module that defines what `path` (seen from `mod`) names."""
        if depth > 8:
            return None
        r = self.absolute(mod, path)
        if r is None:
            return None
        cur, segs = r
        while segs and "::".join(cur + [segs[0]]) in self.modules:
            cur.append(segs[0])
            segs = segs[1:]
        here = "::".join(cur)
        if not segs or segs[0] in ("*", "self"):
            return here
        name = segs[0]
        if name in self.defs.get(here, ()):
            return here
        target = self.reexports.get(here, {}).get(name)
        if target:
            return self.resolve(here, target, depth + 1)
        return here

    def edges(self):
        g = {m: set() for m in self.modules}
        for mod, text in self.modules.items():
            paths = []
            for vis, tree in USE_RE.findall(text):
                if vis:
                    continue  # re-exports are followed, not counted
                paths += expand_use(tree)
            text_wo_use = USE_RE.sub("", text)
            paths += PATH_RE.findall(text_wo_use)
            prefix = f"{mod}::" if mod else ""
            children = {m[len(prefix) :] for m in self.modules if m.startswith(prefix) and "::" not in m[len(prefix) :]}
            for m in re.finditer(r"(?<![\w:])([a-z_]\w*)((?:::[A-Za-z_]\w*)+)", text_wo_use):
                if m.group(1) in children - {""}:
                    paths.append(m.group(1) + m.group(2))
            for p in paths:
                t = self.resolve(mod, p)
                if t is not None and t != mod:
                    g[mod].add(t)
        return g


def cycles(g):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in g:
                continue
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            strong(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("crates", nargs="+", help="crate folders (each with src/lib.rs or src/main.rs)")
    ap.add_argument("--edges", action="store_true", help="print every module's uses")
    args = ap.parse_args()
    bad = 0
    for root in args.crates:
        crate = Crate(root)
        g = crate.edges()
        if args.edges:
            for m in sorted(g):
                print(f"{root}: {m or 'crate'} -> {', '.join(sorted(x or 'crate' for x in g[m])) or '-'}")
        for comp in cycles(g):
            bad += 1
            print(f"{root}: cycle among {', '.join(c or 'crate' for c in comp)}")
        print(f"{root}: {len(g)} modules, {sum(len(v) for v in g.values())} uses", file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

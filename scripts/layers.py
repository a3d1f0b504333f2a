#!/usr/bin/env python3
"""The library's files call each other one way: no import circle.

Reads the symbols each object of the shipped build defines and uses (nm),
draws an edge from a file to the file that defines a symbol it uses, and
prints every strongly connected set of two or more files (a circle), one
line each.  Exit 0: none; 1: a circle; 2: no objects to read.

  python3 scripts/layers.py build/obj/src
"""
import collections
import glob
import os
import subprocess
import sys


def symbols(obj):
    defined, used = set(), set()
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRVWG":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def circles(graph):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
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
    return out


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "build/obj/src"
    objs = sorted(glob.glob(os.path.join(top, "**", "*.o"), recursive=True))
    if not objs:
        print("layers: no objects under %s (make first)" % top)
        return 2
    owner, uses = {}, {}
    for o in objs:
        d, u = symbols(o)
        uses[o] = u
        for s in d:
            owner[s] = o
    graph = collections.defaultdict(set)
    for o in objs:
        graph[o]
        for s in uses[o]:
            if s in owner and owner[s] != o:
                graph[o].add(owner[s])
    found = circles(graph)
    for comp in found:
        print("circle: " + " <-> ".join(os.path.relpath(c, top) for c in comp))
    print("layers: %d files, %d edges, %d circle%s" %
          (len(objs), sum(len(v) for v in graph.values()), len(found), "" if len(found) == 1 else "s"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

"The plain-text table the bench scripts print (no dependency beyond Python)."


def table(rows, cols):
    "Print `rows` (dicts) as left-aligned columns `cols`, a header line first."
    w = {c: max(len(c), *(len(str(r.get(c, ''))) for r in rows)) for c in cols}
    print('  '.join(c.ljust(w[c]) for c in cols))
    for r in rows: print('  '.join(str(r.get(c, '')).ljust(w[c]) for c in cols))

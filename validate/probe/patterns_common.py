"""What the probe's pattern generators (gen_*.py) and ncu parsers (parse_ncu*.py) share:
their command lines, the pattern file format (one line each:
NAME WIDTH NTHREADS | st idx... | ld idx...) and reading ncu --csv output."""
import argparse
import csv
import io


def out_path(doc, default):
    """A generator's one argument: the pattern file to write (`default`, whose committed
    copy is fixtures/h100/`default`)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", default=default, metavar="OUT.txt",
                    help="where to write the patterns (default: %(default)s; "
                         f"the committed copy is fixtures/h100/{default})")
    return ap.parse_args().out


def pattern_line(name, width, st, ld):
    """One line of a pattern file."""
    return f"{name} {width} {len(st)} | {' '.join(map(str, st))} | {' '.join(map(str, ld))}\n"


class Patterns:
    """The patterns of one file, in order."""

    def __init__(self):
        self.pats = []
        self.names = set()

    def add(self, name, width, st, ld=None):
        """A pattern storing at `st` and loading from `ld` (`st` where not given)."""
        ld = st if ld is None else ld
        assert len(st) == len(ld) and name not in self.names, name
        self.names.add(name)
        self.pats.append((name, width, st, ld))

    def write(self, out):
        """Writes the file and says how many patterns it holds."""
        with open(out, "w") as f:
            for name, width, st, ld in self.pats:
                f.write(pattern_line(name, width, st, ld))
        print(len(self.pats), "patterns")


def parse_args(doc):
    """A parser's arguments: `patterns`, `ncu_csv` and `out`."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("patterns", metavar="PATTERNS.txt", help="the pattern file the probe ran, in the same order")
    ap.add_argument("ncu_csv", metavar="NCU_RAW.csv", help="ncu --csv output of that run")
    ap.add_argument("out", metavar="OUT.csv", help="the table to write")
    return ap.parse_args()


def pattern_names(path):
    """The pattern names of a pattern file, in order."""
    return [l.split()[0] for l in open(path)]


def ncu_launches(path):
    """ncu --csv output (its lines in quotes) as one dict per profiled launch, in launch
    order: metric name -> value (without thousands separators), and under 'kernel' the
    kernel's name without its arguments."""
    lines = [l for l in open(path) if l.startswith('"')]
    by_id = {}
    for r in csv.DictReader(io.StringIO(''.join(lines))):
        d = by_id.setdefault(int(r['ID']), {'kernel': r.get('Kernel Name', '').split('(')[0]})
        d[r['Metric Name']] = r['Metric Value'].replace(',', '')
    return [by_id[i] for i in sorted(by_id)]

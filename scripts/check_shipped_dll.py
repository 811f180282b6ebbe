#!/usr/bin/python3
"""Checks that a shipped Windows DLL needs nothing but Windows' own DLLs.

    scripts/check_shipped_dll.py --objdump x86_64-w64-mingw32-objdump --exports '^drydb_' \\
        build/cross/win-x64/bin/drydb_c.dll

From its import and export tables (objdump -p):
- it imports only DLLs every Windows has: KERNEL32, ntdll, ADVAPI32, bcrypt and the C runtime
  (msvcrt, or the Universal CRT's ucrtbase and api-ms-win-crt-*), so no MinGW runtime DLL
  (libstdc++-6, libgcc_s_seh-1, libwinpthread-1) nor a dependency's DLL;
- every name it exports matches --exports (the C API's drydb_ functions).
Prints what it found; exits 1 naming each breach.
"""
import argparse
import re
import subprocess
import sys

ALLOWED_IMPORTS = re.compile(
    r"^(kernel32|ntdll|advapi32|bcrypt|msvcrt|ucrtbase|api-ms-win-crt-[a-z0-9-]+)\.dll$",
    re.IGNORECASE)


def check(objdump, path, exports):
    headers = subprocess.run([objdump, "-p", path], check=True, capture_output=True,
                             text=True).stdout
    breaches = []
    imports = re.findall(r"^\s*DLL Name: (\S+)", headers, re.MULTILINE)
    for name in imports:
        if not ALLOWED_IMPORTS.match(name):
            breaches.append(f"imports {name}")
    # The export table's names: "\t[   0] drydb_close" under "[Ordinal/Name Pointer] Table".
    exported = []
    table = headers.split("[Ordinal/Name Pointer] Table", 1)
    if len(table) == 2:
        for line in table[1].splitlines()[1:]:
            entry = re.match(r"^\s*\[\s*\d+\]\s+(.*)$", line)
            if not entry:
                break
            exported.append(entry.group(1).split()[-1])
    foreign = [name for name in exported if not re.search(exports, name)]
    breaches += [f"exports {name}" for name in foreign]
    if not exported:
        breaches.append("exports nothing")
    print(f"{path}: imports {', '.join(imports) or 'nothing'}; exports {len(exported)} names"
          f"{', each matching ' + exports if not foreign else ''}")
    return breaches


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objdump", default="x86_64-w64-mingw32-objdump")
    parser.add_argument("--exports", required=True, help="regex every exported name matches")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    failed = False
    for path in args.files:
        for breach in check(args.objdump, path, args.exports):
            print(f"{path}: {breach}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

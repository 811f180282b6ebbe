#!/usr/bin/python3
"""Checks that a shipped ELF shared library needs nothing of the system but the C library.

    scripts/check_shipped.py --exports '^drydb_' build/shipped/linux-x64/libdrydb_c.so

For each file, from its dynamic section and version needs (readelf), as auditwheel's policies
read them:
- NEEDED names only the C library's parts: libc, libm, libpthread, libdl, librt and the loader;
- every versioned symbol it needs is glibc's, at version 2.34 or older (Ubuntu 22.04, RHEL 9,
  Debian 12 and later), none of libstdc++'s (GLIBCXX_, CXXABI_) or libgcc_s's (GCC_);
- every symbol it exports matches --exports (the C API's drydb_ functions, the Python
  extension's PyInit_ function);
- with --machine, it is built for that machine (readelf's name: X86-64, AArch64), so a
  cross-build that fell back to the build machine's compiler fails.
Prints what it found; exits 1 naming each breach.
"""
import argparse
import re
import subprocess
import sys

ALLOWED_NEEDED = re.compile(
    r"^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|"
    r"ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1)$")
GLIBC_FLOOR = (2, 34)


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def check(path, exports, machine):
    breaches = []
    header = run("readelf", "-h", "-W", path)
    found = re.search(r"Machine:\s+(.+)", header)
    built_for = found.group(1).strip() if found else "unknown"
    if machine and machine.lower() not in built_for.lower():
        breaches.append(f"is built for {built_for}, not {machine}")
    dynamic = run("readelf", "-d", "-W", path)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    for name in needed:
        if not ALLOWED_NEEDED.match(name):
            breaches.append(f"needs {name}")

    # The version needs: "Name: GLIBC_2.34  Flags: none  Version: 5" under each "File: libc.so.6".
    versions = run("readelf", "-V", "-W", path)
    needs_section = versions.split("Version needs section", 1)
    wanted = re.findall(r"Name: (\S+)", needs_section[1]) if len(needs_section) > 1 else []
    newest = (0, 0)
    for version in wanted:
        m = re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", version)
        if m:
            v = (int(m.group(1)), int(m.group(2)))
            newest = max(newest, v)
            if v > GLIBC_FLOOR:
                breaches.append(f"needs {version} (newer than glibc 2.34)")
        elif version.startswith("GLIBC_"):
            continue  # GLIBC_PRIVATE and the like would be caught by NEEDED's loader rules
        else:
            breaches.append(f"needs {version} (not the C library's)")

    symbols = run("nm", "-D", "--defined-only", path).split("\n")
    exported = [line.split()[-1].split("@")[0] for line in symbols if line.strip()]
    stray = [name for name in exported if not re.search(exports, name)]
    for name in stray[:10]:
        breaches.append(f"exports {name}")
    if len(stray) > 10:
        breaches.append(f"exports {len(stray) - 10} more symbols not matching {exports}")

    print(f"{path}: {built_for}; NEEDED {', '.join(needed) or 'nothing'}; newest glibc symbol version "
          f"{newest[0]}.{newest[1]}; {len(exported)} exported symbols")
    return breaches


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--exports", required=True,
                        help="a regex every exported symbol must match")
    parser.add_argument("--machine", help="the machine it must be built for (readelf -h)")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    failed = False
    for path in args.files:
        for breach in check(path, args.exports, args.machine):
            print(f"check_shipped: {path} {breach}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""The work of scripts/check-build-deps (see there): python3 check_build_deps.py BUILD_DIR PACKAGE...

Which system files a build read comes from the build tree itself: the CMake files Ninja re-runs
CMake on (build.ninja's RERUN_CMAKE inputs), the headers of every object (ninja -t deps), the
libraries on every link line, the compiler and Qt's code generators. Which package owns each comes
from dpkg's file lists; which packages a fresh machine gets from the scripts is the Depends and
PreDepends closure (never Recommends) of the named packages, plus what Debian always installs
(Essential and Priority required).
"""
import glob
import json
import os
import re
import subprocess
import sys

SYSTEM_PREFIXES = ("/usr/", "/lib/", "/lib64/", "/bin/", "/sbin/", "/opt/", "/etc/")


def run(args, cwd=None):
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


def files_read(build):
    """Absolute system paths the configured and built tree read."""
    paths = set()
    ninja = open(os.path.join(build, "build.ninja"), encoding="utf-8").read().replace("$\n", " ")
    for line in ninja.splitlines():
        if line.startswith("build build.ninja:") and "RERUN_CMAKE" in line:
            paths.update(line.split())
        elif line.strip().startswith("LINK_LIBRARIES ="):
            paths.update(line.split())
    paths.update(run(["ninja", "-C", build, "-t", "deps"]).split())
    cache = open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8").read()
    # The tools the build rules run (CMAKE_LINKER is not among them: the compiler driver links).
    for name in ("CMAKE_CXX_COMPILER", "CMAKE_AR", "CMAKE_RANLIB", "CMAKE_MAKE_PROGRAM"):
        match = re.search(r"^%s:\w+=(.+)$" % name, cache, re.M)
        if match:
            paths.add(match.group(1).strip())
    for info in glob.glob(os.path.join(build, "**", "AutogenInfo.json"), recursive=True):
        data = json.load(open(info, encoding="utf-8"))
        paths.update(v for k, v in data.items() if k.endswith("_EXECUTABLE") and isinstance(v, str))
    return sorted(p for p in paths if p.startswith(SYSTEM_PREFIXES) and os.path.exists(p))


def file_owners():
    """path -> package, from dpkg's file lists (architecture qualifiers dropped)."""
    owners = {}
    for listing in glob.glob("/var/lib/dpkg/info/*.list"):
        package = os.path.basename(listing)[: -len(".list")].split(":")[0]
        with open(listing, encoding="utf-8", errors="replace") as f:
            for line in f:
                owners.setdefault(line.rstrip("\n"), package)
    return owners


def owner_of(path, owners):
    """The package owning path, trying the spellings merged /usr and symlinks give one file."""
    candidates = [path, os.path.realpath(path)]
    for p in list(candidates):
        for a, b in (("/usr/lib/", "/lib/"), ("/lib/", "/usr/lib/"), ("/usr/bin/", "/bin/"), ("/bin/", "/usr/bin/"),
                     ("/usr/sbin/", "/sbin/"), ("/lib64/", "/usr/lib64/")):
            if p.startswith(a):
                candidates.append(b + p[len(a):])
    for p in candidates:
        if p in owners:
            return owners[p]
    return None


def depends_closure(packages):
    out = run(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
               "--no-breaks", "--no-replaces", "--no-enhances"] + packages)
    closure = {line.strip().strip("<>").split(":")[0] for line in out.splitlines() if line and not line[0].isspace()}
    always = run(["dpkg-query", "-W", "-f", "${Package} ${Essential} ${Priority}\n"])
    for line in always.splitlines():
        name, essential, priority = (line.split() + ["", "", ""])[:3]
        if essential == "yes" or priority == "required":
            closure.add(name)
    return closure


def main():
    build, packages = sys.argv[1], sys.argv[2:]
    read = files_read(build)
    owners = file_owners()
    closure = depends_closure(packages)
    by_package, unowned = {}, []
    for path in read:
        package = owner_of(path, owners)
        if package is None:
            unowned.append(path)
        else:
            by_package.setdefault(package, []).append(path)
    missing = {p: files for p, files in by_package.items() if p not in closure}
    for package, files in sorted(missing.items()):
        shown = ", ".join(files[:3]) + (" and %d more" % (len(files) - 3) if len(files) > 3 else "")
        print("check-build-deps: %s reads %s from the Debian package %s, which the scripts' packages do not "
              "bring in through Depends: name it in BUILD_PACKAGES (scripts/lib.sh)" % (build, shown, package),
              file=sys.stderr)
    for path in unowned:
        print("check-build-deps: %s reads %s, which no Debian package installed (a hand install?)" % (build, path),
              file=sys.stderr)
    if missing or unowned:
        return 1
    print("check-build-deps: %s read %d system files from %d Debian packages, all in the Depends closure of the %d "
          "packages the scripts install" % (build, len(read), len(by_package), len(packages)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

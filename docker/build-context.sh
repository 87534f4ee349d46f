#!/usr/bin/env bash
# Prepares the fiucx image's build context: the jars of the command line's module path (the
# fiucx modules' class directories jarred when the build has not packaged them), a Java runtime
# made with jlink from the JDK that built them holding only the modules fiucx needs, and the
# launcher. Then: docker build --network host -f docker/Dockerfile -t fiucx CONTEXT
#
# usage: docker/build-context.sh [CLASSPATH_FILE [CONTEXT_DIR]]
#   CLASSPATH_FILE  the image's class path, one line separated by ':' (default
#                   docker/target/image-classpath.txt, written by `mvn package` in the docker module)
#   CONTEXT_DIR     made afresh (default docker/target/context)
# JAVA_HOME names the JDK (25 or later) whose jdeps and jlink are used.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
classpath_file="${1:-$here/target/image-classpath.txt}"
context="${2:-$here/target/context}"
jdk="${JAVA_HOME:?set JAVA_HOME to the JDK 25 that built fiucx}"

[[ -s "$classpath_file" ]] || { echo "build-context: no class path in $classpath_file (run mvn package first)" >&2; exit 1; }
rm -rf "$context"
mkdir -p "$context/lib"

mapfile -t entries < <(tr ':' '\n' < "$classpath_file")
for entry in "${entries[@]}"; do
  if [[ -d "$entry" ]]; then
    # a reactor module that was compiled but not packaged: .../<module>/target/classes
    module="$(basename "$(dirname "$(dirname "$entry")")")"
    "$jdk/bin/jar" --create --file "$context/lib/fiucx-$module.jar" -C "$entry" .
  elif [[ -f "$entry" ]]; then
    cp "$entry" "$context/lib/"
  else
    echo "build-context: $entry is missing" >&2
    exit 1
  fi
done

# The jars run on the module path (fiucx's modules are explicit, the libraries without a descriptor
# automatic), so jlink links the JDK's modules only: jdeps finds those the module graph names
# (java.desktop for the plots, jdk.httpserver for /metrics, jdk.management, jdk.unsupported, ...);
# java.management is named too because Micrometer's JVM binders reach some of it only by
# reflection. Missing optional dependencies of the libraries (xchart's PDF and SVG back ends, ...)
# are never loaded.
modules="$("$jdk/bin/jdeps" --module-path "$context/lib" --add-modules ALL-MODULE-PATH \
  --ignore-missing-deps --multi-release 25 --print-module-deps)"
"$jdk/bin/jlink" --add-modules "$modules,java.management" --strip-debug --no-man-pages \
  --no-header-files --compress=zip-6 --output "$context/runtime"

cp "$here/fiucx-in-image" "$context/fiucx"
chmod 755 "$context/fiucx"
echo "build-context: $context (modules $modules,java.management)" >&2

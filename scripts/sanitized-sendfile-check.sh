#!/usr/bin/env bash
# The download tests once more, against a build of native/sendfile.c with AddressSanitizer and
# UndefinedBehaviorSanitizer (called by .ci/run after `npm test`). The sanitized module goes to
# dist/sanitized/, never to dist/native/ where the server loads its module from; the tests load it
# through AGORA_SENDFILE_MODULE (src/storage/sendfile.ts). Node itself is not built with ASan, so its
# runtime is preloaded (LD_PRELOAD); leak checking is off because it would report Node's own
# allocations at exit. A sanitizer report aborts the test process, which fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

cc="${CC:-cc}"
include="$(node -p "require('path').join(require('path').dirname(require('path').dirname(require('fs').realpathSync(process.execPath))), 'include', 'node')")"
libasan="$("$cc" -print-file-name=libasan.so)"
if [ ! -f "$include/node_api.h" ] || [ ! -e "$libasan" ]; then
  echo "sanitized sendfile check: needs Node's headers ($include) and the compiler's libasan ($libasan)" >&2
  exit 1
fi

out=dist/sanitized/sendfile.node
mkdir -p "$(dirname "$out")"
"$cc" -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
  -Wall -shared -fPIC -I "$include" -o "$out" native/sendfile.c -lpthread

export AGORA_SENDFILE_MODULE="$PWD/$out"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The module must load under the sanitizers (a module that fails to load would leave the tests on Node's path).
LD_PRELOAD="$libasan" node -e "process.dlopen({ exports: {} }, process.env.AGORA_SENDFILE_MODULE)"
LD_PRELOAD="$libasan" npx jest --selectProjects integration --maxWorkers=1 \
  test/integration/files/sendfile-guards.test.ts test/integration/files/sendfile.test.ts test/integration/files/read.test.ts

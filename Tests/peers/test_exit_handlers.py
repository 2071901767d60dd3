"""A stopping server must not run libcrypto's exit handler.

By default libcrypto registers `OPENSSL_cleanup` with atexit on first use; at `exit()` it frees
libcrypto's global and thread-local state while other threads (the storage thread that sealed a
seed, a detached fetch) may still be ending, and their thread-exit destructors free it again. A
full-disk server stopped by SIGTERM aborted that way once in CI ("double free or corruption",
exit 134, in test_draw_disk_full). The race is too narrow to provoke on demand, so this test checks
its cause: an LD_PRELOAD shim (compiled here with the toolchain's C compiler) logs every handler
registered with `__cxa_atexit` and names the library it lives in; after a round is drawn (HMAC,
AES-GCM, Ed25519 on the loop and storage threads) and SIGTERM, none may be libcrypto's or libssl's.
"""
import os
import shutil
import subprocess

from test_draw_export import Tombola

SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
int __cxa_atexit(void (*f)(void *), void *arg, void *dso) {
    static int (*real)(void (*)(void *), void *, void *);
    if (!real) real = (int (*)(void (*)(void *), void *, void *))dlsym(RTLD_NEXT, "__cxa_atexit");
    Dl_info info;
    if (dladdr((void *)f, &info) && info.dli_fname)
        fprintf(stderr, "atexit-handler %s %s\n", info.dli_fname, info.dli_sname ? info.dli_sname : "?");
    return real(f, arg, dso);
}
"""


def compile_shim(tmp_path):
    compiler = shutil.which("cc") or shutil.which("clang") or shutil.which("gcc")
    assert compiler, "no C compiler on PATH (the Swift toolchain brings clang)"
    source = tmp_path / "atexit_shim.c"
    source.write_text(SHIM)
    shim = tmp_path / "atexit_shim.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(shim), str(source), "-ldl"], check=True, timeout=60)
    return shim


def test_a_stopped_server_registers_no_libcrypto_exit_handler(tmp_path, monkeypatch):
    shim = compile_shim(tmp_path)
    monkeypatch.setenv("LD_PRELOAD", str(shim))
    server = Tombola(str(tmp_path / "data"))
    try:
        assert server.command("start")[0] == 200
        status, body = server.command("stop")
        assert status == 200 and body["result"]["winners"], body
    finally:
        server.stop()
    stderr = server.proc.stderr.read()
    server.proc.stdout.close()
    server.proc.stderr.close()
    assert server.proc.returncode == 0, stderr
    handlers = [line for line in stderr.splitlines() if line.startswith("atexit-handler ")]
    # The shim works: the C++ runtime's handlers are always there.
    assert any("libstdc++" in line for line in handlers), stderr
    assert not [line for line in handlers if "libcrypto" in line or "libssl" in line], handlers

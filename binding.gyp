{
  "variables": {
    "wasi_sources": [
      "src/node/binding_wasi.c",
      "src/wasi/wasi_table.c",
      "src/wasi/wasi_fd.c",
      "src/wasi/wasi_poll.c",
      "src/wasi/wasi_misc.c",
      "src/wasi/wasi_path.c",
      "src/wasi/wasi_path_posix.c",
      "src/wasi/wasi_path_calls.c",
      "src/wasi/wasi_path_host_posix.c",
      "src/wasi/wasi_imports.c",
      "src/wasi/wasi_host_posix.c",
      "src/wasi/wasi_fd_posix.c",
      "src/wasi/wasi_poll_posix.c",
      "src/wasi/wasi_clock_posix.c",
      "src/wasi/wasi_errno_posix.c"
    ],
    "wasi_windows_sources": [
      "src/node/binding_wasi.c",
      "src/wasi/wasi_table.c",
      "src/wasi/wasi_fd.c",
      "src/wasi/wasi_poll.c",
      "src/wasi/wasi_misc.c",
      "src/wasi/wasi_path.c",
      "src/wasi/wasi_path_windows.c",
      "src/wasi/wasi_path_wine.c",
      "src/wasi/wasi_path_calls.c",
      "src/wasi/wasi_path_host_windows.c",
      "src/wasi/wasi_imports.c",
      "src/wasi/wasi_host_windows.c",
      "src/wasi/wasi_fd_windows.c",
      "src/wasi/wasi_poll_windows.c",
      "src/wasi/wasi_clock_windows.c",
      "src/wasi/wasi_errno_windows.c"
    ]
  },
  "targets": [
    {
      "target_name": "wasi_thread_pool",
      "sources": [
        "src/node/binding.c",
        "src/node/addon_copy.c",
        "src/core/wtp_pool.c",
        "src/core/wtp_park.c",
        "src/core/wtp_interrupt.c"
      ],
      "defines": ["NAPI_VERSION=8"],
      "conditions": [
        ["OS=='linux'", {
          "sources": ["src/os/wait_linux.c", "src/os/memory_linux.c", "<@(wasi_sources)"],
          "cflags_c": ["-std=gnu11", "-O2", "-Wall", "-Wextra", "-fvisibility=hidden"]
        }],
        ["OS=='mac'", {
          "sources": ["src/os/wait_darwin.c", "src/os/memory_none.c", "<@(wasi_sources)"],
          "xcode_settings": {
            "GCC_C_LANGUAGE_STANDARD": "c11",
            "GCC_SYMBOLS_PRIVATE_EXTERN": "YES",
            "OTHER_CFLAGS": ["-O2", "-Wall", "-Wextra", "-fvisibility=hidden"],
            "MACOSX_DEPLOYMENT_TARGET": "10.15"
          }
        }],
        ["OS=='win'", {
          "sources": ["src/os/wait_windows.c", "src/os/memory_none.c", "<@(wasi_windows_sources)"],
          "libraries": ["Synchronization.lib", "ntdll.lib", "bcrypt.lib"],
          "msvs_settings": {
            "VCCLCompilerTool": {
              "AdditionalOptions": ["/std:c11", "/experimental:c11atomics"]
            }
          }
        }],
        ["OS not in ('linux', 'mac', 'win')", {
          "sources": ["src/os/wait_portable.c", "src/os/memory_none.c"],
          "cflags_c": ["-std=gnu11", "-O2", "-Wall", "-Wextra"]
        }]
      ]
    }
  ]
}

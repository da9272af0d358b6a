# The bad-input table of the README ("Bad input"): one test per row, each
# checking the message, the exit status and, where the command writes
# files, that a failed run leaves nothing behind and overwrites nothing.
# Labels `cli` and `bad_input`. Modules and files: examples/bad/.
set(BAD ${PROJECT_SOURCE_DIR}/examples/bad)
set(BAD_OUT ${CMAKE_CURRENT_BINARY_DIR}/bad_input_out)
set(MISBEHAVING $<TARGET_FILE:hloref_misbehaving_plugin>)
# hloref_bad_input_test(NAME RC MATCH [STDOUT re] [ABSENT path] [KEEP path]
#                       ARGS arg...)
function(hloref_bad_input_test name rc match)
  cmake_parse_arguments(PARSE_ARGV 3 T "" "STDOUT;ABSENT;KEEP" "ARGS")
  add_test(NAME bad_input.${name}
    COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:hloref>;${T_ARGS}"
            -DRC=${rc} "-DMATCH=${match}" "-DSTDOUT=${T_STDOUT}"
            "-DABSENT=${T_ABSENT}" "-DKEEP=${T_KEEP}"
            -P ${CMAKE_CURRENT_SOURCE_DIR}/hloref/expect.cmake)
  set_tests_properties(bad_input.${name} PROPERTIES LABELS "cli;bad_input")
endfunction()

# Malformed text: file:line:col, what is wrong, near what.
hloref_bad_input_test(malformed_text 1
  "truncated.hlo:[0-9]+:[0-9]+: error: "
  ARGS check ${BAD}/truncated.hlo)
# An ill-typed module: the instruction and the rule it breaks.
hloref_bad_input_test(ill_typed 1
  "dot_contracting_mismatch.hlo:7:[0-9]+: .*%d.*\\[dot\\.C[0-9]+\\]"
  ARGS check ${BAD}/dot_contracting_mismatch.hlo)
# run: wrong argument count, shape and type.
hloref_bad_input_test(wrong_argument_count 1 "takes 1 argument.*got 2"
  ARGS run ${PROJECT_SOURCE_DIR}/examples/while_loop.hlo "{1,2,3,4}" "{1}")
hloref_bad_input_test(wrong_argument_shape 1
  "argument for parameter 0 \\(%x.1\\) has shape f32\\[3\\], the parameter is f32\\[4\\]"
  ARGS run ${PROJECT_SOURCE_DIR}/examples/while_loop.hlo "f32[3] {1,2,3}")
hloref_bad_input_test(wrong_argument_type 1
  "argument for parameter 0 \\(%x.1\\) has shape s32\\[4\\], the parameter is f32\\[4\\]"
  ABSENT ${BAD_OUT}/wrong_type
  ARGS run --out=${BAD_OUT}/wrong_type ${PROJECT_SOURCE_DIR}/examples/while_loop.hlo "s32[4] {1,2,3,4}")
# .npy arguments: missing, truncated (the first 100 bytes of mlp_x.npy).
hloref_bad_input_test(missing_npy 1
  "argument 1 \\(parameter 0 'x.1'\\): no such .npy file '.*no_such.npy'"
  ARGS run ${PROJECT_SOURCE_DIR}/examples/while_loop.hlo ${BAD}/no_such.npy)
hloref_bad_input_test(truncated_npy 1
  "argument 1 \\(parameter 0 'x.1'\\): .*truncated.npy: .npy: truncated: the header is 118 bytes long but only 90 follow"
  ARGS run ${PROJECT_SOURCE_DIR}/examples/while_loop.hlo ${BAD}/truncated.npy)
# A huge shape: valid for check, refused by run before allocating, naming
# the flag that raises the limit.
hloref_bad_input_test(huge_shape_check 0 "ROOT.*f32\\[100000,100000,100\\]"
  ARGS check ${BAD}/huge_result.hlo)
hloref_bad_input_test(huge_shape_run 1
  "%b: its result \\(f32\\[100000,100000,100\\]\\) needs 4000000000000 bytes.*\\(raise it with --max-bytes=BYTES\\)"
  ABSENT ${BAD_OUT}/huge
  ARGS run --out=${BAD_OUT}/huge ${BAD}/huge_result.hlo)
# An endless loop: stopped by the iteration limit or the wall-time limit,
# each naming its flag; --out files of an earlier run are left as they were.
hloref_bad_input_test(endless_loop_iterations 1
  "%w: while loop ran more than 1000 iterations \\(raise it with --max-while-iterations=N\\)"
  ARGS run --max-while-iterations=1000 ${BAD}/endless_loop.hlo)
hloref_bad_input_test(endless_loop_timeout 1
  "%[a-z]+: evaluation exceeded the wall-time limit of 1s \\(raise it with --timeout=SECONDS\\)"
  KEEP ${BAD_OUT}/loop/result_0.npy
  ARGS run --timeout=1 --out=${BAD_OUT}/loop ${BAD}/endless_loop.hlo)
# Plugins (plugin:) run in their own process (hloref-plugin-host): a crash,
# a hang, a wrong shape or a bad buffer fails the run with a message.
hloref_bad_input_test(crashing_plugin 1
  "plugin 'misbehaving' run of module 'crash_run': the plugin's process crashed with signal 11 \\(Segmentation fault\\)"
  ABSENT ${BAD_OUT}/crash
  ARGS run --backend=plugin:${MISBEHAVING} --out=${BAD_OUT}/crash ${BAD}/plugin/crash_run.hlo "{1,2,3,4}")
hloref_bad_input_test(hanging_plugin 1
  "plugin 'misbehaving' run of module 'hang_run' did not finish within 1s; the plugin's process was killed"
  ARGS run --timeout=1 --backend=plugin:${MISBEHAVING} ${BAD}/plugin/hang_run.hlo "{1,2,3,4}")
hloref_bad_input_test(plugin_wrong_shape 1
  "the backend returned result 0 of shape f32\\[5\\]; the module's result 0 is f32\\[4\\]"
  KEEP ${BAD_OUT}/shape/result_0.npy
  ARGS run --backend=plugin:${MISBEHAVING} --out=${BAD_OUT}/shape ${BAD}/plugin/wrong_shape.hlo "{1,2,3,4}")
hloref_bad_input_test(plugin_bad_buffer 1
  "plugin 'misbehaving' returned a bad buffer: result 0: size_bytes is 15, but 4 elements of f32 take 16"
  ARGS run --backend=plugin:${MISBEHAVING} ${BAD}/plugin/bad_size.hlo "{1,2,3,4}")
# A status outside hloref_status (C allows any number): an Unknown error
# quoting it (once undefined behaviour in C++, found by plugin_results_fuzz).
hloref_bad_input_test(plugin_unknown_status 1
  "plugin 'misbehaving' \\(.*\\) run: status 255 from the misbehaving plugin \\(unknown hloref_status 255\\)"
  ARGS run --backend=plugin:${MISBEHAVING} ${BAD}/plugin/unknown_status.hlo "{1,2,3,4}")
# What a plugin prints goes to stderr: stdout holds the result alone.
hloref_bad_input_test(plugin_prints 0 "writes to stdout"
  STDOUT "^f32\\[4\\]\\{0\\} \\{-1, -2, -3, -4\\}\n$"
  ARGS run --backend=plugin:${MISBEHAVING} ${BAD}/plugin/print_stdout.hlo "{1,2,3,4}")
# A command: backend that writes garbage instead of its result .npy.
hloref_bad_input_test(command_garbage 1
  "command '.*garbage_backend.sh' wrote a bad result_0.npy: .*bad magic"
  ABSENT ${BAD_OUT}/garbage
  ARGS run --backend=command:${BAD}/garbage_backend.sh --out=${BAD_OUT}/garbage ${PROJECT_SOURCE_DIR}/examples/while_loop.hlo "{1,2,3,4}")
# Deep nesting: a tuple shape nested past the parser's 64 levels; a chain of
# 1,000 nested calls (written by a setup test), which the oracle refuses
# past --max-call-depth (default 200) and the CPU backend past its 1,000
# levels (its emitter recurses per level), naming the depth; with the limit
# raised, the oracle computes it (-2: one negate of 2).
hloref_bad_input_test(nested_tuple 1
  "nested_tuple.hlo:5:[0-9]+: error: nesting deeper than 64 levels"
  ARGS check ${BAD}/nested_tuple.hlo)
add_test(NAME bad_input.write_call_chain
  COMMAND ${CMAKE_COMMAND} -DN=1000 -DOUT=${BAD_OUT}/call_chain.hlo
          -P ${CMAKE_CURRENT_SOURCE_DIR}/hloref/write_call_chain.cmake)
set_tests_properties(bad_input.write_call_chain PROPERTIES
  LABELS "cli;bad_input" FIXTURES_SETUP call_chain)
hloref_bad_input_test(deep_calls_oracle 1
  "%r: calling computation c[0-9]+ exceeds the call depth limit of 200 \\(raise it with --max-call-depth=N\\)"
  ARGS run ${BAD_OUT}/call_chain.hlo 2)
if(HLOREF_FUZZ)
  # Under ASan a frame is about three times larger: 1,000 levels do not fit
  # in the default 8 MiB stack, and the oracle stops with its stack message
  # (checked here) instead of overflowing.
  hloref_bad_input_test(deep_calls_oracle_raised 1
    "at call depth [0-9]+: the evaluator's stack is nearly exhausted"
    ARGS run --max-call-depth=2000 ${BAD_OUT}/call_chain.hlo 2)
else()
  hloref_bad_input_test(deep_calls_oracle_raised 0 ""
    STDOUT "^f32\\[\\] -2\n$"
    ARGS run --max-call-depth=2000 ${BAD_OUT}/call_chain.hlo 2)
endif()
hloref_bad_input_test(deep_calls_cpu 1
  "the module nests computations 1001 deep .*the CPU backend compiles at most 1000 levels"
  ARGS run --backend=cpu ${BAD_OUT}/call_chain.hlo 2)
set_tests_properties(bad_input.deep_calls_oracle bad_input.deep_calls_oracle_raised
  bad_input.deep_calls_cpu PROPERTIES FIXTURES_REQUIRED call_chain)
# With --max-call-depth raised past what the stack holds (10,000 levels need
# some 40 MiB of native recursion; the default stack is 8 MiB), the oracle
# stops with an error before the stack runs out.
add_test(NAME bad_input.write_call_chain_10000
  COMMAND ${CMAKE_COMMAND} -DN=10000 -DOUT=${BAD_OUT}/call_chain_10000.hlo
          -P ${CMAKE_CURRENT_SOURCE_DIR}/hloref/write_call_chain.cmake)
set_tests_properties(bad_input.write_call_chain_10000 PROPERTIES
  LABELS "cli;bad_input" FIXTURES_SETUP call_chain_10000)
hloref_bad_input_test(deep_calls_stack 1
  "at call depth [0-9]+: the evaluator's stack is nearly exhausted \\([0-9]+ KiB left; .*\\(ulimit -s\\) or lower --max-call-depth"
  ARGS run --max-call-depth=1000000 ${BAD_OUT}/call_chain_10000.hlo 2)
set_tests_properties(bad_input.deep_calls_stack PROPERTIES
  FIXTURES_REQUIRED call_chain_10000)
# --random-args on a parameter beyond the byte limit: refused before it is
# allocated, naming the flag (this ended the process with std::bad_alloc).
hloref_bad_input_test(huge_random_argument 1
  "--random-args: parameter 0 %p f32\\[100000,100000\\] needs 40000000000 bytes \\(0 drawn before it\\), more than the limit of 1000000 bytes \\(raise it with --max-bytes=BYTES\\)"
  ARGS run --random-args --max-bytes=1000000 ${BAD}/huge_parameter.hlo)
# The same huge module on the CPU backend: its own limit, as unsupported.
hloref_bad_input_test(huge_shape_cpu 1
  "backend 'cpu' cannot compile the module: %b has the shape f32\\[100000,100000,100\\]: the CPU backend compiles values of at most 4294967296 elements"
  ARGS run --backend=cpu ${BAD}/huge_result.hlo)

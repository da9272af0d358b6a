# End-to-end tests of the hloref command (label `cli`). Expected values are
# hand-derived; see examples/README.md.
set(EX ${PROJECT_SOURCE_DIR}/examples)
function(hloref_cli_test name rc match)
  add_test(NAME cli.${name}
    COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:hloref>;${ARGN}"
            -DRC=${rc} "-DMATCH=${match}" -P ${CMAKE_CURRENT_SOURCE_DIR}/hloref/expect.cmake)
  set_tests_properties(cli.${name} PROPERTIES LABELS cli)
endfunction()

hloref_cli_test(help 0 "Commands:" --help)
hloref_cli_test(unknown_command 2 "unknown command" frobnicate)
hloref_cli_test(check_help 0 "Usage: hloref check" check --help)
hloref_cli_test(run_help 0 "Usage: hloref run" run --help)
hloref_cli_test(check_missing_file 1 "cannot open|No such file|not found" check ${EX}/no_such_file.hlo)
foreach(ex while_loop sort_pairs elementwise mlp_forward)
  hloref_cli_test(check_${ex} 0 "ENTRY" check ${EX}/${ex}.hlo)
endforeach()
hloref_cli_test(check_bad_dot 1 "dot_contracting_mismatch.hlo:7:[0-9]+: .*%d.*\\[dot\\.C[0-9]+\\]"
  check ${EX}/bad/dot_contracting_mismatch.hlo)
hloref_cli_test(check_truncated 1 "truncated.hlo:[56]:[0-9]+: " check ${EX}/bad/truncated.hlo)
# while: x * 0.5^10 after 10 iterations.
hloref_cli_test(run_while 0 "\\( *10, *\\{ *1, 0\\.001953125, -0\\.00390625, 0 *\\} *\\)"
  run ${EX}/while_loop.hlo "f32[4] {1024, 2, -4, 0}")
# shape-less literal argument takes the parameter's shape
hloref_cli_test(run_while_bare_literal 0 "\\( *10, *\\{ *1, 0\\.001953125, -0\\.00390625, 0 *\\} *\\)"
  run ${EX}/while_loop.hlo "{1024, 2, -4, 0}")
# descending TOTALORDER sort: +NaN first, +0 before -0.
hloref_cli_test(run_sort 0 "\\{ *nan, 7, 3, 0, -0, -1 *\\}, *\\{ *2, 3, 0, 5, 4, 1 *\\}"
  run ${EX}/sort_pairs.hlo "f32[6] {3, -1, nan, 7, -0, 0}" "s32[6] {0, 1, 2, 3, 4, 5}")
# XLA integer division/remainder corners and saturating conversions.
hloref_cli_test(run_elementwise 0 "\\{ *3, -3, -2147483648, -1 *\\}, *\\{ *1, -1, 0, 5 *\\}, *\\{ *127, -128, 0, 127 *\\}, *\\{ *inf, -200\\.5, nan, inf *\\}"
  run ${EX}/elementwise.hlo "s32[4] {7, -7, -2147483648, 5}" "s32[4] {2, 2, -1, 0}" "f32[4] {1e10, -200.5, nan, 65520}")
# --enclosure: x * 0.5 per iteration is exact, so every enclosure is a
# point (relative radius 0, nothing unjudged).
hloref_cli_test(run_enclosure_exact 0 "enclosure result 1: largest relative radius 0, unjudged 0 of 4"
  run --enclosure ${EX}/while_loop.hlo "f32[4] {1024, 2, -4, 0}")
# A bf16 layer norm as JAX lowers it (examples/enclosure/): the outputs
# near zero after y * g + b cancel are unjudged, not passed (examples/README.md).
hloref_cli_test(run_enclosure_layer_norm 0 "enclosure result 0: largest relative radius 0.5, unjudged 22 of 1024 \\(22 too wide"
  run --enclosure --print=none --random-args=1 ${EX}/enclosure/layer_norm_bf16.hlo)
hloref_cli_test(run_enclosure_backend 2 "--enclosure is computed by the oracle"
  run --enclosure --backend=cpu ${EX}/while_loop.hlo "f32[4] {1024, 2, -4, 0}")
hloref_cli_test(run_enclosure_bad_threshold 2 "--enclosure-threshold"
  run --enclosure --enclosure-threshold=x ${EX}/while_loop.hlo "f32[4] {1024, 2, -4, 0}")
hloref_cli_test(run_wrong_arg_count 1 "takes 1 argument.*got 0" run ${EX}/while_loop.hlo)
hloref_cli_test(run_wrong_arg_shape 1 "parameter 0" run ${EX}/while_loop.hlo "f32[3] {1, 2, 3}")
hloref_cli_test(run_bad_literal 1 "argument 1" run ${EX}/while_loop.hlo "f32[4] {1, 2,")
hloref_cli_test(run_bad_profile 2 "--profile" run --profile=fast ${EX}/while_loop.hlo)
# Replicas (seed 001 AllReduce/AllGather values; examples/collectives.hlo).
hloref_cli_test(run_replicas 0 "replica 1: .*\\{ *4, 7\\.75 *\\}, *\\{ *1, 2\\.5, 3, 5\\.25 *\\}"
  run --replicas=2 ${EX}/collectives.hlo)
hloref_cli_test(run_replicas_header_conflict 1 "--replicas=3, but the module header says replica_count=2"
  run --replicas=3 ${EX}/collectives.hlo)
hloref_cli_test(run_replicas_bad_count 2 "--replicas must be" run --replicas=0 ${EX}/collectives.hlo)
hloref_cli_test(run_collective_deadlock 1 "replica 0: .*%ar.*deadlock.*execution 3.*did not arrive: replica 1"
  run ${EX}/bad/collective_deadlock.hlo)
# dot + broadcast + relu + reduce-max on .npy arguments (examples/README.md).
hloref_cli_test(run_mlp_npy 0 "\\{ *8, 9, 10, 11 *\\}, *\\{ *8, 9, 10, 11 *\\} *\\}, *\\{ *11, 11, 11, 11, 11, 11, 11, 11 *\\}"
  run ${EX}/mlp_forward.hlo ${EX}/data/mlp_x.npy ${EX}/data/mlp_w1.npy ${EX}/data/mlp_b1.npy ${EX}/data/mlp_w2.npy ${EX}/data/mlp_b2.npy)
# the golden suite from the command line (the main job).
hloref_cli_test(conformance_golden 0 "fail 0" conformance --backend=interpreter --suite=golden --golden-dir=${PROJECT_SOURCE_DIR}/golden)

# diff: the interpreter agrees with itself; the flush-to-zero sample plugin
# departs at the multiply inside the fusion (y[0] = 1e-40 is subnormal, so
# -1 * 1e-40 is flushed to -0); with the ftz deviation declared it passes.
hloref_cli_test(diff_help 0 "Usage: hloref diff" diff --help)
hloref_cli_test(diff_needs_backend 2 "--backend is required" diff ${EX}/diff_fusion.hlo)
hloref_cli_test(diff_interpreter 0 "no departure"
  diff --backend=interpreter ${EX}/diff_fusion.hlo "f32[4] {1, 2, 3, 4}" "f32[4] {1e-40, 2, 3, 4}")
hloref_cli_test(diff_ftz_plugin 1 "diff_fusion.hlo:9:3 +%f/m \\(multiply\\): .*expected -9.99995e-41, got -0.*%f/m \\([^)]*diff_fusion.hlo:9:3\\) is the first instruction that departs"
  diff --backend=plugin:$<TARGET_FILE:hloref_sample_plugin_ftz> ${EX}/diff_fusion.hlo "f32[4] {1, 2, 3, 4}" "f32[4] {1e-40, 2, 3, 4}")
hloref_cli_test(diff_ftz_plugin_declared 0 "no isolated instruction departs"
  diff --backend=plugin:$<TARGET_FILE:hloref_sample_plugin_ftz> --deviations=ftz ${EX}/diff_fusion.hlo "f32[4] {1, 2, 3, 4}" "f32[4] {1e-40, 2, 3, 4}")
hloref_cli_test(diff_random_args 0 "drawn from seed 7"
  diff --backend=interpreter --seed=7 ${EX}/diff_fusion.hlo)
hloref_cli_test(diff_missing_args 1 "takes 2 arguments, 0 given"
  diff --backend=interpreter ${EX}/diff_fusion.hlo)

# reduce: with x = y = 1e-20, x * y = 1e-40 is subnormal; the flush-to-zero
# plugin returns 0 there and the departure reaches the root. The smallest
# failing module is %m = multiply(x, y) alone (3 entry instructions).
hloref_cli_test(reduce_help 0 "Usage: hloref reduce" reduce --help)
hloref_cli_test(reduce_ftz_plugin 0 "ROOT %m = f32\\[2\\]\\{0\\} multiply\\(%x, %y\\).*root %m: 8 -> 3 instructions"
  reduce --backend=plugin:$<TARGET_FILE:hloref_sample_plugin_ftz> ${EX}/reduce_chain.hlo "f32[2] {1e-20, 1}" "f32[2] {1e-20, 2}" "f32[2] {1e30, 1}")
# --enclosure: the flushed subnormal product leaves its whole-program
# enclosure, so reduce keeps it; with ftz=f32 declared it is inside.
hloref_cli_test(reduce_enclosure_ftz_plugin 0 "ROOT %m = f32\\[2\\]\\{0\\} multiply\\(%x, %y\\).*root %m: 8 -> 3 instructions.*outside the whole-program enclosure"
  reduce --enclosure --backend=plugin:$<TARGET_FILE:hloref_sample_plugin_ftz> ${EX}/reduce_chain.hlo "f32[2] {1e-20, 1}" "f32[2] {1e-20, 2}" "f32[2] {1e30, 1}")
hloref_cli_test(reduce_enclosure_ftz_declared 1 "does not fail"
  reduce --enclosure --deviations=ftz=f32 --backend=plugin:$<TARGET_FILE:hloref_sample_plugin_ftz> ${EX}/reduce_chain.hlo "f32[2] {1e-20, 1}" "f32[2] {1e-20, 2}" "f32[2] {1e30, 1}")
hloref_cli_test(reduce_not_failing 1 "does not fail on the backend"
  reduce --backend=interpreter ${EX}/reduce_chain.hlo "f32[2] {1e-20, 1}" "f32[2] {1e-20, 2}" "f32[2] {1e30, 1}")
hloref_cli_test(reduce_match_other_failure 1 "does not fail on the backend"
  reduce --backend=plugin:$<TARGET_FILE:hloref_sample_plugin_ftz> --match=no-such-message ${EX}/reduce_chain.hlo "f32[2] {1e-20, 1}" "f32[2] {1e-20, 2}" "f32[2] {1e30, 1}")
# Multi-op programs are summarised beside the single-op cases.
hloref_cli_test(conformance_programs_line 0 "single-op cases: pass [0-9]+, fail 0.*programs: pass [1-9][0-9]*, fail 0"
  conformance --backend=interpreter --suite=golden --jobs=1)
# Per-participant arguments (p0 holds {1, 2}, p1 {3, 4}): all-gather gives
# {1, 2, 3, 4} on both replicas.
hloref_cli_test(run_participant_args 0 "replica 0: f32\\[4\\]\\{0\\} \\{1, 2, 3, 4\\}.*replica 1: f32\\[4\\]\\{0\\} \\{1, 2, 3, 4\\}"
  run --participant-args=${EX}/data/participants ${EX}/participants.hlo)
hloref_cli_test(run_participant_args_missing 1 "participant 0: .*no such .npy file"
  run --participant-args=${EX}/data/no_such_dir ${EX}/participants.hlo)
# diff on a replicated module with every participant's own values.
hloref_cli_test(diff_participant_args 0 "pass .*%g \\(all-gather\\).*no departure"
  diff --backend=interpreter --participant-args=${EX}/data/participants ${EX}/participants.hlo)

# Real dumps (issue 16, docs/real-dumps.md). examples/dumps/ holds modules in
# the form JAX dumps them. Expected values by hand: jax_sharding computes
# x * w (w broadcast along rows) and its row sums: row 0 {1, 1, -3, 8} sums
# to 7, row 1 {5, 3, -7, 16} to 17; the Sharding / MoveToHost /
# MoveToDevice custom-calls are identities.
set(DUMPS ${EX}/dumps)
# (expect.cmake matches stdout followed by stderr.)
hloref_cli_test(run_annotations 0 "\\{ *\\{ *1, 1, -3, 8 *\\}, *\\{ *5, 3, -7, 16 *\\} *\\}, *\\{ *7, 17 *\\}.*note: annotation custom-calls MoveToDevice \\(1\\), MoveToHost \\(1\\), Sharding \\(2\\): XLA removes them"
  run ${DUMPS}/jax_sharding.hlo "{{1,2,3,4},{5,6,7,8}}" "{1,0.5,-1,2}")
hloref_cli_test(run_annotations_cpu 0 "\\{ *\\{ *1, 1, -3, 8 *\\}, *\\{ *5, 3, -7, 16 *\\} *\\}, *\\{ *7, 17 *\\}"
  run --backend=cpu ${DUMPS}/jax_sharding.hlo "{{1,2,3,4},{5,6,7,8}}" "{1,0.5,-1,2}")
hloref_cli_test(check_annotations_note 0 "note: annotation custom-calls MoveToDevice \\(1\\), MoveToHost \\(1\\), Sharding \\(2\\): XLA removes them"
  check ${DUMPS}/jax_sharding.hlo)
# A shard shape (f32[4,8] -> f32[4,4]) is not an identity: refused, located.
hloref_cli_test(check_shard_shape 1 "bad_shard_shape.hlo:6:8: .*\\[custom-call.C4\\].*f32\\[4,4\\] differs from the operand's f32\\[4,8\\]"
  check ${DUMPS}/bad_shard_shape.hlo)
# Elided constants: a warning for check, a refusal for run that names them,
# filled on request (zeros: the result is the argument itself).
hloref_cli_test(check_elided 0 "elided_constant.hlo:5:3: warning: %constant.2 f32\\[16\\] is an elided constant"
  check --quiet ${DUMPS}/elided_constant.hlo)
hloref_cli_test(run_elided_refused 1 "1 elided constant.*elided_constant.hlo:5:3: %constant.2 f32\\[16\\].*--fill-elided=zeros"
  run ${DUMPS}/elided_constant.hlo --random-args)
hloref_cli_test(run_elided_zeros 0 "\\{ *1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 *\\}, *\\{ *0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1 *\\} *\\}, *7.*elided_constant.hlo:5:3: %constant.2 f32\\[16\\]: zeros"
  run --fill-elided=zeros ${DUMPS}/elided_constant.hlo "{{1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16},{0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-1}}")
hloref_cli_test(run_elided_zeros_cpu 0 "\\{ *0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1 *\\} *\\}, *7"
  run --backend=cpu --fill-elided=zeros ${DUMPS}/elided_constant.hlo "{{1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16},{0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-1}}")
hloref_cli_test(run_elided_bad_fill 2 "--fill-elided takes zeros, random or random:SEED"
  run --fill-elided=ones ${DUMPS}/elided_constant.hlo)
# Random arguments: the s32 position feeds a dynamic-update-slice of a
# 1-row update into 16 rows (starts 0..15) and a 3-row dynamic-slice
# (starts 0..13): drawn in [0, 13]. Without the flag, the error names it.
hloref_cli_test(run_random_args_index 0 "%Arg_1.2 s32\\[\\]: integers in \\[0, 13\\] \\(start index of dynamic-slice %dynamic-slice.6\\)"
  run --random-args=1 --print=none ${DUMPS}/dynamic_index.hlo)
hloref_cli_test(run_missing_args_names_flag 1 "takes 3 arguments, got 0: .*--random-args"
  run ${DUMPS}/dynamic_index.hlo)
hloref_cli_test(run_random_args_with_args 2 "--random-args draws every parameter"
  run --random-args ${EX}/while_loop.hlo "{1,2,3,4}")
# --print=summary: min, max, mean, NaN and inf counts per result (the
# while loop halves {1024, 2, -4, nan} ten times: {1, 2^-9, -2^-8, nan}).
hloref_cli_test(run_print_summary 0 "result 0: s32\\[\\] min 10 max 10 mean 10\nresult 1: f32\\[4\\]\\{0\\} min -0.00390625 max 1 mean 0.332682292 nan 1 inf 0"
  run --print=summary ${EX}/while_loop.hlo "{1024, 2, -4, nan}")
hloref_cli_test(run_print_summary_cpu 0 "result 1: f32\\[4\\]\\{0\\} min -0.00390625 max 1 mean 0.332682292 nan 1 inf 0"
  run --backend=cpu --print=summary ${EX}/while_loop.hlo "{1024, 2, -4, nan}")
hloref_cli_test(run_print_bad 2 "--print takes full, summary or none" run --print=some ${EX}/while_loop.hlo)
# No header: check and run take the participant counts from the flags.
# all-reduce of p + replica-id over 2 replicas: {1,2} + {2,3} = {3, 5}.
hloref_cli_test(check_no_header_replicas 0 "ENTRY" check --replicas=2 ${DUMPS}/no_header_all_reduce.hlo)
hloref_cli_test(run_no_header_replicas 0 "replica 1: f32\\[2\\]\\{0\\} \\{3, 5\\}"
  run --replicas=2 ${DUMPS}/no_header_all_reduce.hlo "{1,2}")
hloref_cli_test(check_replicas_header_conflict 1 "--replicas=3, but the module header says replica_count=2"
  check --replicas=3 ${EX}/collectives.hlo)
hloref_cli_test(run_partitions_header_conflict 1 "--partitions=3, but the module header says num_partitions=4"
  run --partitions=3 ${PROJECT_SOURCE_DIR}/spec/ir/testdata/gpu_async_collectives.hlo)
# Limits: shapes are never refused by check (Llama 3.1 405B's embedding
# table, 128256 x 16384 bf16, as a parameter); a literal beyond --max-bytes
# is, naming the flag.
hloref_cli_test(check_huge_shapes 0 "ENTRY" check ${DUMPS}/huge_shapes.hlo)
hloref_cli_test(check_literal_limit 1 "elided_constant.hlo:5:.*needs 64 bytes, more than the limit of 63 bytes \\(raise it with --max-bytes=BYTES\\)"
  check --max-bytes=63 ${DUMPS}/elided_constant.hlo)
# A Sharding inside a while body (as JAX emits in scans): x doubled 3
# times is {8, 16, 24, 32}, on the oracle and the CPU backend; drawn, the
# loop's bound stays in [0, 8].
hloref_cli_test(run_scan_sharding 0 "\\( *3, *\\{ *8, 16, 24, 32 *\\}, *3 *\\)"
  run ${DUMPS}/scan_sharding.hlo "{1,2,3,4}" "3")
hloref_cli_test(run_scan_sharding_cpu 0 "\\( *3, *\\{ *8, 16, 24, 32 *\\}, *3 *\\)"
  run --backend=cpu ${DUMPS}/scan_sharding.hlo "{1,2,3,4}" "3")
hloref_cli_test(run_random_args_loop_bound 0 "%bound s32\\[\\]: integers in \\[0, 8\\] \\(bound of while loop %w\\)"
  run --random-args=2 --print=summary ${DUMPS}/scan_sharding.hlo)
# Evaluation limits name the flag that raises them, never an option field.
# (32 bytes: the loop's f32[4] broadcast is read in place, so the run
# holds at most 36 bytes: the argument and the init tuple, or the carried
# accumulator and the product.)
hloref_cli_test(run_max_bytes_names_flag 1 "needs [0-9]+ bytes with [0-9]+ bytes of values held, more than the limit of 32 bytes \\(raise it with --max-bytes=BYTES\\)"
  run --max-bytes=32 ${EX}/while_loop.hlo "{1,2,3,4}")
hloref_cli_test(run_max_iterations_names_flag 1 "more than 3 iterations \\(raise it with --max-while-iterations=N\\)"
  run --max-while-iterations=3 ${EX}/while_loop.hlo "{1,2,3,4}")
# Every annotation target in a chain is the identity: the argument comes
# back unchanged (through a {0,1} layout and back), oracle and cpu alike.
set(SHARDING_ARG "{{0,1,2,3,4,5,6,7},{8,9,10,11,12,13,14,15},{16,17,18,19,20,21,22,23},{24,25,26,27,28,29,30,31}}")
foreach(backend interpreter cpu)
  hloref_cli_test(run_sharding_forms_${backend} 0 "\\{ *\\{ *0, 1, 2, 3, 4, 5, 6, 7 *\\}, *\\{ *8, 9, 10, 11, 12, 13, 14, 15 *\\}, *\\{ *16, 17, 18, 19, 20, 21, 22, 23 *\\}, *\\{ *24, 25, 26, 27, 28, 29, 30, 31 *\\} *\\}"
    run --backend=${backend} ${DUMPS}/sharding_forms.hlo "${SHARDING_ARG}")
endforeach()
# bf16 weights drawn in [-1, 1) and rounded to bf16 (so +-1 can occur; w
# comes back through the Sharding): the summary's min and max lie in [-1, 1]; oracle and cpu draw
# the same values, so both summaries agree.
foreach(backend interpreter cpu)
  hloref_cli_test(run_random_bf16_${backend} 0 "result 1: bf16\\[64,32\\]\\{1,0\\} min -(0\\.9[0-9]*|1) max (0\\.9[0-9]*|1) mean -?0\\.0[0-9]*"
    run --backend=${backend} --random-args=11 --print=summary ${DUMPS}/bf16_mlp.hlo)
endforeach()
# diff verifies huge dumps too: it gets past verification to the argument
# count (it used to stop at the 2^32-element shape limit).
hloref_cli_test(diff_huge_shapes_verified 1 "takes 3 arguments, 0 given"
  diff --backend=interpreter ${DUMPS}/huge_shapes.hlo)
# Token ids of an embedding lookup (gather of 1-row slices of 10 rows) are
# drawn in [0, 9].
hloref_cli_test(run_random_args_gather 0 "%Arg_1.2 s32\\[1,3\\]: integers in \\[0, 9\\] \\(gather indices of %gather.3\\)"
  run --random-args=5 --print=summary ${DUMPS}/embed_gather.hlo)
# .npy arguments (spec/types/npy.h): a file whose header does not fit the
# parameter is refused from its header, before its data is read; a
# truncated file names what the header asks for and what the file holds
# (mlp_b2.npy without its last 3 bytes: 13 of 16 bytes).
hloref_cli_test(run_npy_wrong_shape 1 "argument 1 \\(parameter 0 '%?Arg_0.1'\\): [^\n]*mlp_w1.npy: holds f32\\[16,32\\] \\(dtype <f4\\), but the parameter is f32\\[8,16\\]; the file's data was not read"
  run ${EX}/mlp_forward.hlo ${EX}/data/mlp_w1.npy ${EX}/data/mlp_w1.npy ${EX}/data/mlp_b1.npy ${EX}/data/mlp_w2.npy ${EX}/data/mlp_b2.npy)
hloref_cli_test(run_npy_truncated 1 "argument 5 \\(parameter 4 [^\n]*truncated_b2.npy: .npy: truncated data: shape \\(4,\\) of 4-byte elements needs 16 bytes of data, the file has 13"
  run ${EX}/mlp_forward.hlo ${EX}/data/mlp_x.npy ${EX}/data/mlp_w1.npy ${EX}/data/mlp_b1.npy ${EX}/data/mlp_w2.npy ${EX}/bad/truncated_b2.npy)
# The progress line (docs/real-dumps.md "Progress"): with a 0.01 s interval
# a 100,000-iteration while loop reports while the loop (the 5th of 5 entry
# instructions) runs, so 4 are done.
hloref_cli_test(run_progress_line 0 "hloref run: progress: 4 of 5 entry instructions, [0-9]+ evaluated in all, [0-9]+\\.[0-9] s, [0-9]+\\.[0-9] MiB held \\(peak [0-9]+\\.[0-9] MiB\\)"
  run --progress-interval=0.01 --print=summary ${DUMPS}/scan_sharding.hlo "{1,2,3,4}" "100000")
# A run that reported progress ends with its totals, naming the smallest
# --max-bytes it is accepted with (EvalResult::limit_bytes).
hloref_cli_test(run_progress_done_line 0 "hloref run: done: [0-9]+ instructions evaluated in [0-9]+\\.[0-9] s, peak [0-9]+\\.[0-9] MiB held; the run fits --max-bytes=[0-9]+"
  run --progress-interval=0.01 --print=summary ${DUMPS}/scan_sharding.hlo "{1,2,3,4}" "100000")
hloref_cli_test(run_progress_interval_bad 2 "--progress-interval must be a positive number of seconds, got '0'"
  run --progress-interval=0 ${EX}/while_loop.hlo "{1,2,3,4}")
# diff and reduce read dumps as run does: elided constants refused unless
# --fill-elided; missing parameters drawn with --random-args (the same
# values and ranges as run's, e.g. the dynamic-slice start in [0, 13]);
# --max-bytes limits the parser and the oracle, naming the flag.
hloref_cli_test(diff_elided_refused 1 "1 elided constant.*elided_constant.hlo:5:3: %constant.2 f32\\[16\\].*--fill-elided=zeros"
  diff --backend=interpreter --random-args ${DUMPS}/elided_constant.hlo)
hloref_cli_test(diff_elided_zeros 0 "no departure.*hloref diff: --fill-elided: 1 elided constant\\(s\\) given made-up values:\n  [^\n]*elided_constant.hlo:5:3: %constant.2 f32\\[16\\]: zeros"
  diff --backend=interpreter --fill-elided=zeros --random-args ${DUMPS}/elided_constant.hlo)
hloref_cli_test(diff_random_args_ranges 0 "no departure.*--random-args: 3 parameter\\(s\\) drawn from seed 1:.*%Arg_1.2 s32\\[\\]: integers in \\[0, 13\\] \\(start index of dynamic-slice %dynamic-slice.6\\)"
  diff --backend=interpreter --random-args=1 ${DUMPS}/dynamic_index.hlo)
hloref_cli_test(diff_random_args_missing_only 0 "no departure.*--random-args: 1 parameter\\(s\\) drawn from seed 3:\n  parameter 1 %y f32\\[4\\]: uniform in \\[-1, 1\\)"
  diff --backend=interpreter --random-args=3 ${EX}/diff_fusion.hlo "f32[4] {1, 2, 3, 4}")
hloref_cli_test(diff_seed_and_random_args 2 "--seed and --random-args both draw the missing parameters"
  diff --backend=interpreter --seed=1 --random-args ${EX}/diff_fusion.hlo)
hloref_cli_test(diff_max_bytes_parser 1 "needs 64 bytes, more than the limit of 63 bytes \\(raise it with --max-bytes=BYTES\\)"
  diff --backend=interpreter --max-bytes=63 ${DUMPS}/elided_constant.hlo)
hloref_cli_test(diff_max_bytes_oracle 1 "the oracle cannot evaluate the module: .*more than the limit of 32 bytes \\(raise it with --max-bytes=BYTES\\)"
  diff --backend=interpreter --max-bytes=32 ${EX}/while_loop.hlo "{1,2,3,4}")
hloref_cli_test(reduce_elided_refused 1 "1 elided constant.*elided_constant.hlo:5:3: %constant.2 f32\\[16\\].*--fill-elided=zeros"
  reduce --backend=interpreter --random-args ${DUMPS}/elided_constant.hlo)
hloref_cli_test(reduce_random_args 1 "hloref reduce: --random-args: 3 parameter\\(s\\) drawn from seed 2:.*does not fail on the backend"
  reduce --backend=interpreter --random-args=2 ${EX}/reduce_chain.hlo)
hloref_cli_test(reduce_fill_elided 1 "hloref reduce: --fill-elided: 1 elided constant\\(s\\) given made-up values:.*does not fail on the backend"
  reduce --backend=interpreter --fill-elided=random:4 --random-args ${DUMPS}/elided_constant.hlo)
hloref_cli_test(reduce_max_bytes 1 "needs 64 bytes, more than the limit of 63 bytes \\(raise it with --max-bytes=BYTES\\)"
  reduce --backend=interpreter --max-bytes=63 ${DUMPS}/elided_constant.hlo)
hloref_cli_test(reduce_participant_args 2 "--participant-args is for diff"
  reduce --backend=interpreter --participant-args=${EX}/data/participants ${EX}/participants.hlo)
# Large .npy arguments are mapped (spec/types/npy.h) by run, diff and
# reduce: the same results as read.
add_test(NAME cli.run_mapped_npy_args
  COMMAND ${CMAKE_COMMAND} -DHLOREF=$<TARGET_FILE:hloref>
          -DPLUGIN=$<TARGET_FILE:hloref_sample_plugin_ftz>
          -DDIR=${CMAKE_CURRENT_BINARY_DIR}/mapped_args_test
          -P ${CMAKE_CURRENT_SOURCE_DIR}/hloref/mapped_args_test.cmake)
set_tests_properties(cli.run_mapped_npy_args PROPERTIES LABELS cli)

# cli.run_mapped_npy_args: a .npy argument large enough to be mapped
# (NpyReadOptions::map, 1 MiB and up) gives the same result as one read
# with --copy-args, in run, diff and reduce. -DHLOREF=<hloref binary>
# -DPLUGIN=<the flush-to-zero sample plugin> -DDIR=<scratch directory>.
#  1. --random-args=3 --out writes a drawn f32[512,1024] (2 MiB) through the
#     identity module: DIR/drawn/result_0.npy.
#  2. negate(negate(p)), exact, on that file, mapped and copied: both
#     results must be the drawn file byte for byte (the golden is the
#     identity, not either run).
#  3. diff and reduce on the flush-to-zero plugin with a 2 MiB argument of
#     1e-20 (written by run --out), squared: the plugin flushes the
#     subnormal 1e-40 products, so diff finds the departure (exit 1) and
#     reduce keeps a failing module (exit 0); mapped and with --copy-args
#     they print the same.
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
set(shape "f32[512,1024]")
file(WRITE "${DIR}/identity.hlo"
  "HloModule identity\nENTRY e {\n  ROOT p = ${shape} parameter(0)\n}\n")
file(WRITE "${DIR}/negate_twice.hlo"
  "HloModule negate_twice\nENTRY e {\n  p = ${shape} parameter(0)\n"
  "  n = ${shape} negate(p)\n  ROOT r = ${shape} negate(n)\n}\n")
function(run_hloref)
  execute_process(COMMAND ${HLOREF} run ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "hloref run ${ARGN}: exit status ${rc}\n${out}${err}")
  endif()
endfunction()
run_hloref(--random-args=3 --print=none --out=${DIR}/drawn ${DIR}/identity.hlo)
file(SIZE "${DIR}/drawn/result_0.npy" drawn_size)
if(drawn_size LESS 2097152)
  message(FATAL_ERROR "the drawn argument has ${drawn_size} bytes, expected 2 MiB and a header")
endif()
run_hloref(--print=none --out=${DIR}/mapped ${DIR}/negate_twice.hlo
           ${DIR}/drawn/result_0.npy)
run_hloref(--copy-args --print=none --out=${DIR}/copied ${DIR}/negate_twice.hlo
           ${DIR}/drawn/result_0.npy)
foreach(run mapped copied)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files
                  "${DIR}/drawn/result_0.npy" "${DIR}/${run}/result_0.npy"
                  RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    message(FATAL_ERROR "the ${run} run's result differs from its argument")
  endif()
endforeach()
# The argument file itself is unchanged by the mapped run (copy-on-write).
file(SHA256 "${DIR}/drawn/result_0.npy" after)
run_hloref(--print=none ${DIR}/negate_twice.hlo ${DIR}/drawn/result_0.npy)
file(SHA256 "${DIR}/drawn/result_0.npy" again)
if(NOT after STREQUAL again)
  message(FATAL_ERROR "the mapped argument file changed")
endif()

# 3. diff and reduce.
file(WRITE "${DIR}/tiny.hlo"
  "HloModule tiny\nENTRY e {\n  c = f32[] constant(1e-20)\n"
  "  ROOT b = ${shape} broadcast(c), dimensions={}\n}\n")
file(WRITE "${DIR}/square.hlo"
  "HloModule square\nENTRY e {\n  p = ${shape} parameter(0)\n"
  "  m = ${shape} multiply(p, p)\n  ROOT n = ${shape} negate(m)\n}\n")
run_hloref(--print=none --out=${DIR}/tiny ${DIR}/tiny.hlo)
file(SHA256 "${DIR}/tiny/result_0.npy" tiny_before)
foreach(command diff reduce)
  if(command STREQUAL "diff")
    set(want_rc 1)
  else()
    set(want_rc 0)
  endif()
  foreach(copy "" "--copy-args")
    execute_process(
      COMMAND ${HLOREF} ${command} --backend=plugin:${PLUGIN} ${copy}
              ${DIR}/square.hlo ${DIR}/tiny/result_0.npy
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL want_rc)
      message(FATAL_ERROR "hloref ${command} ${copy}: exit status ${rc}, "
                          "expected ${want_rc}\n${out}${err}")
    endif()
    # Two variables, not a list: the outputs may hold semicolons.
    if(copy STREQUAL "")
      set(mapped "${out}${err}")
    else()
      set(copied "${out}${err}")
    endif()
  endforeach()
  if(NOT mapped STREQUAL copied)
    message(FATAL_ERROR "hloref ${command}: mapped and copied runs differ:\n"
                        "${mapped}\n---\n${copied}")
  endif()
  if(command STREQUAL "diff" AND NOT mapped MATCHES "multiply")
    message(FATAL_ERROR "hloref diff did not name the multiply:\n${mapped}")
  endif()
  if(command STREQUAL "reduce" AND NOT mapped MATCHES "still fails")
    message(FATAL_ERROR "hloref reduce did not keep a failing module:\n${mapped}")
  endif()
endforeach()
file(SHA256 "${DIR}/tiny/result_0.npy" tiny_after)
if(NOT tiny_before STREQUAL tiny_after)
  message(FATAL_ERROR "the mapped argument file changed in diff / reduce")
endif()
file(REMOVE_RECURSE "${DIR}")

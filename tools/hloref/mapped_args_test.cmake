# cli.run_mapped_npy_args: a .npy argument large enough to be mapped
# (NpyReadOptions::map, 1 MiB and up) gives the same result as one read
# with --copy-args. -DHLOREF=<hloref binary> -DDIR=<scratch directory>.
#  1. --random-args=3 --out writes a drawn f32[512,1024] (2 MiB) through the
#     identity module: DIR/drawn/result_0.npy.
#  2. negate(negate(p)), exact, on that file, mapped and copied: both
#     results must be the drawn file byte for byte (the golden is the
#     identity, not either run).
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
file(REMOVE_RECURSE "${DIR}")

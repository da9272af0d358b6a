# Runs the conformance suite on the CPU backend with --cpu-threads=1 and
# with --cpu-threads=2 and requires identical per-case verdicts.
# -DHLOREF=<path> -DCOUNT=<generated cases> -DWORK=<dir> -DCOMPARE=<script>
foreach(t 1 2)
  execute_process(
    COMMAND ${HLOREF} conformance --backend=cpu --count=${COUNT} --jobs=2
            --cpu-threads=${t} --report=${WORK}/threads${t}
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc STREQUAL 0)
    message(FATAL_ERROR "--cpu-threads=${t}: exit status ${rc}\n${err}")
  endif()
endforeach()
execute_process(
  COMMAND python3 ${COMPARE} ${WORK}/threads1/report.json ${WORK}/threads2/report.json
  RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc STREQUAL 0)
  message(FATAL_ERROR "verdicts differ between --cpu-threads=1 and 2")
endif()

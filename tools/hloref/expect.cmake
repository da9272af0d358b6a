# Runs one hloref command and checks its exit status and output.
# -DCMD="prog;arg;..." -DRC=<expected exit status> -DMATCH=<regex or empty>
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
set(all "${out}${err}")
if(NOT rc STREQUAL RC)
  message(FATAL_ERROR "exit status ${rc}, expected ${RC}\n--- output:\n${all}")
endif()
if(MATCH AND NOT all MATCHES "${MATCH}")
  message(FATAL_ERROR "output does not match '${MATCH}'\n--- output:\n${all}")
endif()

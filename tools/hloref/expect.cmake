# Runs one hloref command and checks its exit status and output.
# -DCMD="prog;arg;..." -DRC=<expected exit status> -DMATCH=<regex or empty>
# Optional (the bad-input table, bad_input_tests.cmake):
#   -DSTDOUT=<regex>  stdout alone must match (results are not mixed with
#                     anything a backend prints)
#   -DABSENT=<path>   removed before the run; must not exist after it
#                     (a failed run leaves nothing behind)
#   -DKEEP=<path>     written with a marker before the run; must hold it
#                     unchanged after (a failed run overwrites nothing)
if(ABSENT)
  file(REMOVE_RECURSE "${ABSENT}")
endif()
if(KEEP)
  get_filename_component(keep_dir "${KEEP}" DIRECTORY)
  file(MAKE_DIRECTORY "${keep_dir}")
  file(WRITE "${KEEP}" "untouched by a failed run\n")
endif()
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
set(all "${out}${err}")
if(NOT rc STREQUAL RC)
  message(FATAL_ERROR "exit status ${rc}, expected ${RC}\n--- output:\n${all}")
endif()
if(MATCH AND NOT all MATCHES "${MATCH}")
  message(FATAL_ERROR "output does not match '${MATCH}'\n--- output:\n${all}")
endif()
if(STDOUT AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "stdout does not match '${STDOUT}'\n--- stdout:\n${out}")
endif()
if(ABSENT AND EXISTS "${ABSENT}")
  message(FATAL_ERROR "'${ABSENT}' exists after the run")
endif()
if(KEEP)
  file(READ "${KEEP}" kept)
  if(NOT kept STREQUAL "untouched by a failed run\n")
    message(FATAL_ERROR "'${KEEP}' was overwritten: ${kept}")
  endif()
endif()

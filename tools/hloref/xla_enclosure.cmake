# XLA:CPU keeps excess precision (bf16 results upcast by the program stay
# f32) on the bf16 modules of examples/enclosure/xla_cpu/: `hloref diff
# --deviations=xla-cpu` must find that the per-op comparison fails (XLA's
# outputs differ from the oracle's per-op rounding) and that every element
# lies inside its whole-program enclosure (0 fail, 0 unjudged), and exit 0.
# Prints "SKIP:" (the test's SKIP_REGULAR_EXPRESSION) without the
# project's .venv with jax (bash tools/setup.sh makes it).
# -DHLOREF=<hloref> -DROOT=<source dir> -DWORK=<scratch dir>
set(python "${ROOT}/.venv/bin/python3")
set(have_jax FALSE)
if(EXISTS "${python}")
  execute_process(COMMAND "${python}" -c "import jax, ml_dtypes"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(have_jax TRUE)
  endif()
endif()
if(NOT have_jax)
  message("SKIP: no .venv with jax (bash tools/setup.sh makes it)")
  return()
endif()

set(dir "${ROOT}/examples/enclosure/xla_cpu")
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND "${python}" "${dir}/generate.py" --args "${WORK}"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "generate.py --args failed: ${err}")
endif()

foreach(m layer_norm_bf16 attention_bf16 mlp_bf16)
  file(GLOB args "${WORK}/${m}/arg_*.npy")
  list(SORT args)
  execute_process(
    COMMAND "${HLOREF}" diff
      "--backend=command:${ROOT}/tools/backends/xla_jax.py"
      --deviations=xla-cpu "${dir}/${m}.hlo" ${args}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}${err}")
  message("${m}: ${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${m}: exit status ${rc}, expected 0\n${all}")
  endif()
  # The per-op comparison of the whole output reports differences ...
  if(NOT all MATCHES "whole module on [^\n]*: fail: [^\n]*\\(([0-9]+) of ([0-9]+) elements fail\\)")
    message(FATAL_ERROR "${m}: the per-op comparison reports no difference\n${all}")
  endif()
  set(differ ${CMAKE_MATCH_1})
  set(total ${CMAKE_MATCH_2})
  # ... and the whole-program enclosures pass every element.
  if(NOT all MATCHES "the module conforms within its whole-program enclosures")
    message(FATAL_ERROR "${m}: no 'conforms within its enclosures'\n${all}")
  endif()
  if(NOT all MATCHES "whole-program enclosures: ${total} pass, 0 fail, 0 unjudged")
    message(FATAL_ERROR "${m}: not every element passes its enclosure\n${all}")
  endif()
  message("${m}: ${differ} of ${total} elements differ from per-op rounding, all ${total} inside their enclosures")
endforeach()

# One HLO value, two values: XLA:CPU rounds `d` for one use and not for the
# other, so r = 2 convert(d) - convert(d + d) is not 0. The enclosures hold
# it (0 fail; unjudged: the enclosure of a cancellation), which a rule
# keeping the correlation between two uses of one value would not.
execute_process(
  COMMAND "${HLOREF}" diff
    "--backend=command:${ROOT}/tools/backends/xla_jax.py"
    --deviations=xla-cpu "${dir}/one_value_per_use.hlo"
    "bf16[8] {1.09375, 1.3125, 1.6875, 2.875, 3.3125, 5.125, 7.75, 9.875}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
message("one_value_per_use: ${out}")
if(NOT all MATCHES "element \\{0\\}: expected 0, got 0.00170898438")
  message(FATAL_ERROR "one_value_per_use: XLA:CPU no longer gives d two values\n${all}")
endif()
if(NOT all MATCHES "whole-program enclosures: 0 pass, 0 fail, 8 unjudged")
  message(FATAL_ERROR "one_value_per_use: the enclosures do not hold XLA:CPU's values\n${all}")
endif()

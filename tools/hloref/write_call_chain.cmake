# Writes OUT: an HLO module whose entry calls c<N-1>, which calls c<N-2>,
# ... down to c0, which negates its f32[] parameter (N + 1 nested
# computations; the same module as spec/ir/test_modules.h CallChainModule).
# cmake -DN=<count> -DOUT=<path> -P write_call_chain.cmake
set(text "HloModule chain\nc0 {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}\n")
math(EXPR last "${N} - 1")
foreach(i RANGE 1 ${last})
  math(EXPR prev "${i} - 1")
  string(APPEND text "c${i} {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c${prev}\n}\n")
endforeach()
string(APPEND text "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c${last}\n}\n")
file(WRITE "${OUT}" "${text}")

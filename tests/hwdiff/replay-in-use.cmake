# Runs `nvemu replay --profile PROFILE [OPTION] TRACE` and requires that it reports exactly the
# GPU-in-use answers of LINES as mismatches and nothing else: NV0000 GPU_GET_ID_INFO (0x202) or
# GET_ID_INFO_V2 (0x205) whose gpuFlags (params byte 4, IN_USE = bit 0) the emulator answered GOT while
# the hardware answered RECORDED. Shows what --other-client-on-gpu changes, in both directions.
set(cmd ${NVEMU} replay --profile ${PROFILE} ${OPTION} ${TRACE})
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "'${cmd}' exited ${rc}, expected 1 (mismatches):\n${out}${err}")
endif()
string(REGEX MATCHALL "line [0-9]+: [^\n]*" reported "${out}")
set(seen "")
foreach(l IN LISTS reported)
  if(NOT l MATCHES "^line ([0-9]+): control 0x0000020[25] params differ at byte 4: got ${GOT}, recorded ${RECORDED} \\[emu/profile\\]$")
    message(FATAL_ERROR "not a GPU-in-use mismatch: '${l}'\n${out}")
  endif()
  list(APPEND seen ${CMAKE_MATCH_1})
endforeach()
if(NOT "${seen}" STREQUAL "${LINES}")
  message(FATAL_ERROR "in-use mismatches on lines '${seen}', expected '${LINES}':\n${out}")
endif()

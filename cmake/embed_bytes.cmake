# nvemu_embed_bytes(FILE ARRAY OUT_DECL OUT_LEN): the file's bytes as a C array definition
# `static const char ARRAY[] = {0x..,...,0};` (NUL-terminated, 16 bytes a line) and its length without the NUL.
# Shared by the scripts that compile files into the tool (profiles, `nvemu init` projects).
function(nvemu_embed_bytes file array out_decl out_len)
  file(READ ${file} hex HEX)
  string(LENGTH "${hex}" hexlen)
  math(EXPR len "${hexlen} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "((0x..,){16})" "\\1\n" bytes "${bytes}")
  set(${out_decl} "static const char ${array}[] = {\n${bytes}0};\n" PARENT_SCOPE)
  set(${out_len} ${len} PARENT_SCOPE)
endfunction()

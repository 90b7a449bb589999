#!/usr/bin/env bash
# Checks that code above the baseline x86-64 level stays inside the cpu kernels compiled for it
# (core/cpu/isa_region.hpp): disassembles each binary and fails when a function outside
# tessel::cpu::isa_avx2 / isa_avx512 uses AVX or later (a VEX/EVEX instruction, a ymm/zmm/mask
# register, BMI/LZCNT/POPCNT/MOVBE), or a function of isa_avx2 uses AVX-512. Such a function
# would stop a CPU of the lower level with an illegal instruction: for example an inline
# function or template instantiated in a kernel object and in baseline code, of which the
# linker kept the kernel's copy.
# Usage: check_isa_confinement.sh BINARY...   (needs objdump from binutils)
set -euo pipefail

if [ $# -eq 0 ]; then
    echo "usage: $0 BINARY..." >&2
    exit 2
fi
status=0
for binary in "$@"; do
    if [ ! -r "$binary" ]; then
        echo "$binary: cannot be read" >&2
        exit 2
    fi
    # -C demangles, so the level is the namespace the function's own name starts in.
    # -C demangles; a function's level is the namespace its own name is in: the name before
    # the parameter list, outside template arguments (so std::vector<isa_avx2::T>::resize is
    # baseline code, and a return type is not taken for the name).
    report=$(objdump -d -C --no-show-raw-insn --wide "$binary" | awk '
        function own_name(s,    i, c, depth, start) {
            gsub(/\(anonymous namespace\)/, "anon", s)
            depth = 0
            start = 1
            for (i = 1; i <= length(s); i++) {
                c = substr(s, i, 1)
                if (c == "<") depth++
                else if (c == ">") depth--
                else if (depth == 0 && c == " ") start = i + 1
                else if (depth == 0 && c == "(") return substr(s, start, i - start)
            }
            return substr(s, start)
        }
        /^[0-9a-f]+ <.*>:$/ {
            fn = substr($0, index($0, "<") + 1)
            fn = substr(fn, 1, length(fn) - 2)
            head = own_name(fn)
            level = head ~ /^tessel::cpu::isa_avx512::/ ? 4 : (head ~ /^tessel::cpu::isa_avx2::/ ? 3 : 1)
            next
        }
        /^ *[0-9a-f]+:\t/ {
            if (level == 4) next
            insn = substr($0, index($0, "\t") + 1)
            bad = 0
            if (level == 1) {
                if (insn ~ /^(\{[a-z]+\} )?v[a-z0-9]+ / || insn ~ /%[yz]mm|%k[0-7]/ ||
                    insn ~ /^(andn|bextr|blsi|blsmsk|blsr|bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx|lzcnt|popcnt|movbe) /)
                    bad = 1
            } else if (insn ~ /%zmm|%k[0-7]|%[xy]mm(1[6-9]|2[0-9]|3[01])/ || insn ~ /^k[a-z]+ /) {
                bad = 1
            }
            if (bad && !(fn in seen)) {
                seen[fn] = 1
                printf "%s (%s)\n", fn, insn
                count++
            }
        }
        END { if (count > 0) exit 1 }') || {
        echo "$binary: functions with instructions above their level:"
        echo "$report" | head -n 20
        status=1
        continue
    }
    echo "$binary: every instruction above the baseline is inside tessel::cpu::isa_avx2 / isa_avx512"
done
exit $status

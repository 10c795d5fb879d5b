#!/bin/sh
# alloc_check.sh SRC ALLOC_OBJ DRIVER_OBJ... - refuse, in one line, an allocator object that
# would run code in the driver's own process: mdriver links it into the parent, where a
# constructor runs before main and a definition of a C-library function the driver calls
# (clock_gettime) replaces it for the whole program.  The functions are the driver objects'
# own imports, so the list follows the driver's code.  mmgrade's rules (grader/rules.py:
# constructors, shadowing) check the same and more, under a course's policy.  An object
# missing one of mm.h's four calls, or defining a name the driver keeps global (main, mem_sbrk;
# DRIVER_OBJ is mdriver.r.o, where the rest are local), is refused in one line too, before the link.
src=$1 obj=$2
shift 2
LC_ALL=C
export LC_ALL

# Sections the C runtime runs by name, or by type whatever they are called (as the grader's rule).
ctor=$(readelf -SW "$obj" | sed -n 's/^ *\[ *[0-9]*\] //p' | awk '
    $1 ~ /^\.(init_array|fini_array|preinit_array|ctors|dtors|init|fini|tm_clone_table)(\..*)?$/ ||
    $2 ~ /^(INIT_ARRAY|FINI_ARRAY|PREINIT_ARRAY)$/ { if ($5 !~ /^0+$/) { print $1; exit } }')
if [ -n "$ctor" ]; then
    echo "make: $src has a constructor or destructor (section $ctor), which would run inside the driver itself: remove it (mm_init is where an allocator starts)" >&2
    exit 2
fi
ifunc=$(nm -P "$obj" | awk '$2 == "i" { print $1; exit }')
if [ -n "$ifunc" ]; then
    echo "make: $src makes $ifunc an indirect function (ifunc), whose resolver would run inside the driver before main: define it as a plain function" >&2
    exit 2
fi

# Names the driver's objects call but do not define, less the allocator's own API (mm_*, team).
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
nm -P --defined-only "$@" | awk 'NF >= 2 && $2 != "a" { sub(/@.*/, "", $1); print $1 }' | sort -u >"$tmp/defined"
nm -P --undefined-only "$@" | awk 'NF >= 2 { sub(/@.*/, "", $1); print $1 }' | sort -u |
    comm -23 - "$tmp/defined" | grep -v -e '^mm_' -e '^team$' >"$tmp/imported"
nm -P --defined-only -g "$obj" | awk 'NF >= 2 { sub(/@.*/, "", $1); print $1 }' | sort -u >"$tmp/mine"
# A call missing (not yet written, or static) failed at the link with the linker's lines about
# the driver's files: said here in one line.
for call in mm_init mm_malloc mm_free mm_realloc; do
    if ! grep -qx "$call" "$tmp/mine"; then
        echo "make: $src does not define $call, which the driver calls (mm.h: mm_init, mm_malloc, mm_free and mm_realloc, not static)" >&2
        exit 2
    fi
done
# The driver's own globals (main, memlib's mem_*: the rest are made local in mdriver.r.o) failed
# at the link with ld's lines about "multiple definition": said here in one line.
own=$(nm -P --defined-only -g "$@" | awk 'NF >= 2 { sub(/@.*/, "", $1); print $1 }' | sort -u |
    comm -12 - "$tmp/mine" | head -n 6 | paste -sd, - | sed 's/,/, /g')
if [ -n "$own" ]; then
    echo "make: $src defines names the driver itself defines ($own): remove them, make them static or rename them" >&2
    exit 2
fi
clash=$(comm -12 "$tmp/imported" "$tmp/mine" | head -n 6 | paste -sd, - | sed 's/,/, /g')
if [ -n "$clash" ]; then
    hint=""
    case ", $clash," in
    *", malloc,"* | *", free,"* | *", realloc,"*) hint=" (mm.h's names are mm_malloc, mm_free, mm_realloc)" ;;
    esac
    echo "make: $src defines C-library functions the driver itself calls ($clash): make them static or rename them$hint, or they replace the driver's" >&2
    exit 2
fi

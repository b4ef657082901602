// Force-included (-include) into every C++ file of the TSan build.
//
// protobuf 3.21's map_field.h gives MapFieldBase two more members when
// __SANITIZE_THREAD__ is defined (a const/mutable race detector), so code
// compiled with -fsanitize=thread lays the class out differently from
// Debian's libprotobuf, which was not: the library then reads a map field
// (NodeDef.attr) at the wrong offsets and crashes inside text-format
// parsing. Reading map_field.h first with the macro hidden gives it the
// library's layout; its include guard keeps that for every later include.
//
// libstdc++'s configuration header must be read before the macro is
// hidden: it defines _GLIBCXX_TSAN from it, once per file, and without it
// shared_ptr's release takes a shortcut (a plain write of both counts after
// a 64-bit load) that TSan reports as a race with every weak_ptr released
// on another thread.
#ifndef DFX_TOOLS_SANITIZERS_TSAN_PROTOBUF_ABI_H_
#define DFX_TOOLS_SANITIZERS_TSAN_PROTOBUF_ABI_H_

#include <cstddef>  // bits/c++config.h, with __SANITIZE_THREAD__ set

#pragma push_macro("__SANITIZE_THREAD__")
#undef __SANITIZE_THREAD__
#include <google/protobuf/map_field.h>
#pragma pop_macro("__SANITIZE_THREAD__")

#endif  // DFX_TOOLS_SANITIZERS_TSAN_PROTOBUF_ABI_H_

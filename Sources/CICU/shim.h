/* ICU for the build-time FoldTableGenerator only: the spoof checker's TR39 skeletons, case folding
   and normalization. No shipped target depends on this module, so the server binary never links libicu. */
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>

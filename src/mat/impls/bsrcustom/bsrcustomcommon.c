/*
   What every layer of the package shares, kept apart from the registration (bsrcustom.c) so that no
   layer calls up for it: the log events (MatBSRCustomInitializePackage() registers them). The
   default thread count lives in bsrcustomnode.c.
*/
#include <../src/mat/impls/bsrcustom/bsrcustomimpl.h>

PetscLogEvent MATBSRCUSTOM_PartitionBuild = 0, MATBSRCUSTOM_Kernel = 0, MATBSRCUSTOM_Upload = 0, MATBSRCUSTOM_UploadStructure = 0, MATBSRCUSTOM_Graph = 0, MATBSRCUSTOM_BlockProduct = 0;

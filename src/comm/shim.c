/* Predefined MPI handles that rsmpi's constant table lacks, and the MPI-4
 * large-count entry points where the library provides them. */
#include <mpi.h>

MPI_Datatype mpibench_mpi_byte(void) { return MPI_BYTE; }

/* Predefined MPI handles and constants that rsmpi's constant table lacks, and
 * the MPI-4 large-count entry points where the library provides them (MPICH 4).
 * With an MPI-3 library (Open MPI 4.1) mpibench_large_count() is 0 and the
 * Rust side uses derived datatypes instead; the stubs are never called. */
#include <mpi.h>
#include <stddef.h>

MPI_Datatype mpibench_mpi_byte(void) { return MPI_BYTE; }
MPI_Datatype mpibench_mpi_int(void) { return MPI_INT; }
MPI_Datatype mpibench_mpi_char(void) { return MPI_CHAR; }
MPI_Datatype mpibench_mpi_unsigned_char(void) { return MPI_UNSIGNED_CHAR; }
void *mpibench_in_place(void) { return MPI_IN_PLACE; }
MPI_Op mpibench_mpi_replace(void) { return MPI_REPLACE; }
MPI_Op mpibench_mpi_no_op(void) { return MPI_NO_OP; }
int mpibench_mode_nocheck(void) { return MPI_MODE_NOCHECK; }
int mpibench_lock_exclusive(void) { return MPI_LOCK_EXCLUSIVE; }
int mpibench_lock_shared(void) { return MPI_LOCK_SHARED; }
int mpibench_bsend_overhead(void) { return MPI_BSEND_OVERHEAD; }
int mpibench_max_error_string(void) { return MPI_MAX_ERROR_STRING; }

#if MPI_VERSION >= 4
int mpibench_large_count(void) { return 1; }
int mpibench_send_c(const void *b, size_t n, int dest, int tag, MPI_Comm c)
{
    return MPI_Send_c(b, (MPI_Count)n, MPI_BYTE, dest, tag, c);
}
int mpibench_recv_c(void *b, size_t n, int src, int tag, MPI_Comm c)
{
    return MPI_Recv_c(b, (MPI_Count)n, MPI_BYTE, src, tag, c, MPI_STATUS_IGNORE);
}
int mpibench_isend_c(const void *b, size_t n, int dest, int tag, MPI_Comm c, MPI_Request *r)
{
    return MPI_Isend_c(b, (MPI_Count)n, MPI_BYTE, dest, tag, c, r);
}
int mpibench_irecv_c(void *b, size_t n, int src, int tag, MPI_Comm c, MPI_Request *r)
{
    return MPI_Irecv_c(b, (MPI_Count)n, MPI_BYTE, src, tag, c, r);
}
int mpibench_sendrecv_c(const void *s, size_t n, int dest, void *r, int src, int tag, MPI_Comm c)
{
    return MPI_Sendrecv_c(s, (MPI_Count)n, MPI_BYTE, dest, tag, r, (MPI_Count)n, MPI_BYTE, src,
                          tag, c, MPI_STATUS_IGNORE);
}
int mpibench_bcast_c(void *b, size_t n, int root, MPI_Comm c)
{
    return MPI_Bcast_c(b, (MPI_Count)n, MPI_BYTE, root, c);
}
#else
int mpibench_large_count(void) { return 0; }
int mpibench_send_c(const void *b, size_t n, int dest, int tag, MPI_Comm c)
{ (void)b; (void)n; (void)dest; (void)tag; (void)c; return MPI_ERR_OTHER; }
int mpibench_recv_c(void *b, size_t n, int src, int tag, MPI_Comm c)
{ (void)b; (void)n; (void)src; (void)tag; (void)c; return MPI_ERR_OTHER; }
int mpibench_isend_c(const void *b, size_t n, int dest, int tag, MPI_Comm c, MPI_Request *r)
{ (void)b; (void)n; (void)dest; (void)tag; (void)c; (void)r; return MPI_ERR_OTHER; }
int mpibench_irecv_c(void *b, size_t n, int src, int tag, MPI_Comm c, MPI_Request *r)
{ (void)b; (void)n; (void)src; (void)tag; (void)c; (void)r; return MPI_ERR_OTHER; }
int mpibench_sendrecv_c(const void *s, size_t n, int dest, void *r, int src, int tag, MPI_Comm c)
{ (void)s; (void)n; (void)dest; (void)r; (void)src; (void)tag; (void)c; return MPI_ERR_OTHER; }
int mpibench_bcast_c(void *b, size_t n, int root, MPI_Comm c)
{ (void)b; (void)n; (void)root; (void)c; return MPI_ERR_OTHER; }
#endif

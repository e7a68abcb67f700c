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

/* Persistent collectives (MPI_Xxx_init, MPI-4): MPICH 4 has them in mpi.h;
 * Open MPI 4.1 only as MPIX_Xxx_init in its pcollreq extension (mpi-ext.h,
 * OMPI_HAVE_MPI_EXT_PCOLLREQ). mpibench_pcoll() says which: 4 (MPI_), 1 (MPIX_)
 * or 0 (neither: the init calls return MPI_ERR_OTHER and are never made). */
#if MPI_VERSION >= 4
#define MPIBENCH_PCOLL 4
#define PCOLL(name) MPI_##name##_init
#elif defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define MPIBENCH_PCOLL 1
#define PCOLL(name) MPIX_##name##_init
#endif
#endif
#ifndef MPIBENCH_PCOLL
#define MPIBENCH_PCOLL 0
#endif

int mpibench_pcoll(void) { return MPIBENCH_PCOLL; }

#if MPIBENCH_PCOLL
#define PCALL(name, ...) return PCOLL(name)(__VA_ARGS__, MPI_INFO_NULL, r)
#else
#define PCALL(name, ...) return MPI_ERR_OTHER
#endif

/* Unused arguments when the library has no persistent collectives. */
#define UNUSED(x) (void)(x)

int mpibench_barrier_init(MPI_Comm c, MPI_Request *r)
{
    UNUSED(c); UNUSED(r);
    PCALL(Barrier, c);
}
int mpibench_bcast_init(void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *r)
{
    UNUSED(b); UNUSED(n); UNUSED(t); UNUSED(root); UNUSED(c); UNUSED(r);
    PCALL(Bcast, b, n, t, root, c);
}
int mpibench_gather_init(const void *s, int n, MPI_Datatype t, void *rb, int root, MPI_Comm c,
                         MPI_Request *r)
{
    UNUSED(s); UNUSED(n); UNUSED(t); UNUSED(rb); UNUSED(root); UNUSED(c); UNUSED(r);
    PCALL(Gather, s, n, t, rb, n, t, root, c);
}
int mpibench_gatherv_init(const void *s, int n, MPI_Datatype t, void *rb, const int *counts,
                          const int *displs, MPI_Datatype u, int root, MPI_Comm c, MPI_Request *r)
{
    UNUSED(s); UNUSED(n); UNUSED(t); UNUSED(rb); UNUSED(counts); UNUSED(displs); UNUSED(u);
    UNUSED(root); UNUSED(c); UNUSED(r);
    PCALL(Gatherv, s, n, t, rb, counts, displs, u, root, c);
}
int mpibench_scatter_init(const void *s, int n, MPI_Datatype t, void *rb, int root, MPI_Comm c,
                          MPI_Request *r)
{
    UNUSED(s); UNUSED(n); UNUSED(t); UNUSED(rb); UNUSED(root); UNUSED(c); UNUSED(r);
    PCALL(Scatter, s, n, t, rb, n, t, root, c);
}
int mpibench_scatterv_init(const void *s, const int *counts, const int *displs, MPI_Datatype u,
                           void *rb, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *r)
{
    UNUSED(s); UNUSED(counts); UNUSED(displs); UNUSED(u); UNUSED(rb); UNUSED(n); UNUSED(t);
    UNUSED(root); UNUSED(c); UNUSED(r);
    PCALL(Scatterv, s, counts, displs, u, rb, n, t, root, c);
}
int mpibench_allgather_init(const void *s, int n, MPI_Datatype t, void *rb, MPI_Comm c,
                            MPI_Request *r)
{
    UNUSED(s); UNUSED(n); UNUSED(t); UNUSED(rb); UNUSED(c); UNUSED(r);
    PCALL(Allgather, s, n, t, rb, n, t, c);
}
int mpibench_allgatherv_init(const void *s, int n, MPI_Datatype t, void *rb, const int *counts,
                             const int *displs, MPI_Datatype u, MPI_Comm c, MPI_Request *r)
{
    UNUSED(s); UNUSED(n); UNUSED(t); UNUSED(rb); UNUSED(counts); UNUSED(displs); UNUSED(u);
    UNUSED(c); UNUSED(r);
    PCALL(Allgatherv, s, n, t, rb, counts, displs, u, c);
}
int mpibench_alltoall_init(const void *s, int n, MPI_Datatype t, void *rb, MPI_Comm c,
                           MPI_Request *r)
{
    UNUSED(s); UNUSED(n); UNUSED(t); UNUSED(rb); UNUSED(c); UNUSED(r);
    PCALL(Alltoall, s, n, t, rb, n, t, c);
}
int mpibench_alltoallv_init(const void *s, void *rb, const int *counts, const int *displs,
                            MPI_Datatype u, MPI_Comm c, MPI_Request *r)
{
    UNUSED(s); UNUSED(rb); UNUSED(counts); UNUSED(displs); UNUSED(u); UNUSED(c); UNUSED(r);
    PCALL(Alltoallv, s, counts, displs, u, rb, counts, displs, u, c);
}
int mpibench_alltoallw_init(const void *s, void *rb, const int *counts, const int *displs,
                            const MPI_Datatype *types, MPI_Comm c, MPI_Request *r)
{
    UNUSED(s); UNUSED(rb); UNUSED(counts); UNUSED(displs); UNUSED(types); UNUSED(c); UNUSED(r);
    PCALL(Alltoallw, s, counts, displs, types, rb, counts, displs, types, c);
}
int mpibench_reduce_init(const void *s, void *rb, int n, MPI_Datatype t, MPI_Op op, int root,
                         MPI_Comm c, MPI_Request *r)
{
    UNUSED(s); UNUSED(rb); UNUSED(n); UNUSED(t); UNUSED(op); UNUSED(root); UNUSED(c); UNUSED(r);
    PCALL(Reduce, s, rb, n, t, op, root, c);
}
int mpibench_allreduce_init(const void *s, void *rb, int n, MPI_Datatype t, MPI_Op op,
                            MPI_Comm c, MPI_Request *r)
{
    UNUSED(s); UNUSED(rb); UNUSED(n); UNUSED(t); UNUSED(op); UNUSED(c); UNUSED(r);
    PCALL(Allreduce, s, rb, n, t, op, c);
}
int mpibench_reduce_scatter_init(const void *s, void *rb, const int *counts, MPI_Datatype t,
                                 MPI_Op op, MPI_Comm c, MPI_Request *r)
{
    UNUSED(s); UNUSED(rb); UNUSED(counts); UNUSED(t); UNUSED(op); UNUSED(c); UNUSED(r);
    PCALL(Reduce_scatter, s, rb, counts, t, op, c);
}

/* MPI_TAG_UB of a communicator: the largest tag it takes (at least 32767). */
int mpibench_tag_ub(MPI_Comm c)
{
    int *v = NULL, flag = 0;
    if (MPI_Comm_get_attr(c, MPI_TAG_UB, &v, &flag) != MPI_SUCCESS || !flag || !v)
        return 32767;
    return *v;
}

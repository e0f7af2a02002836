/*
   The plan of a block sparse product (bsrk_blockproducts.h), shared by its symbolic phase
   (bsrk_blockproduct_symbolic.cpp), which builds it, and its numeric phase
   (bsrk_blockproduct_numeric.cpp), which reads it. Internal to the kernel layer.
*/
#ifndef BSRK_BLOCKPRODUCT_PLAN_H
#define BSRK_BLOCKPRODUCT_PLAN_H

#include "bsrk_blockproducts.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace bsrk_blockproduct {

/* A block structure the plan owns: rowptr[nbrows+1], colidx sorted within each row. */
struct Structure {
  bsrk_idx              nbrows = 0, nbcols = 0;
  std::vector<bsrk_idx> rowptr{0};
  std::vector<bsrk_idx> colidx;
  int64_t               nblocks() const { return rowptr.back(); }
};

/* What the numeric phase checks its operands against. */
struct Shape {
  bsrk_idx nbrows = 0, nbcols = 0, rbs = 1, cbs = 1;
  int64_t  nblocks = 0;
};

} // namespace bsrk_blockproduct

struct bsrk_block_product {
  bsrk_product_kind            kind = BSRK_PRODUCT_AP;
  bsrk_blockproduct::Shape     A, P;
  bsrk_blockproduct::Structure ap;        /* A P: the result (AP) or the intermediate (PtAP) */
  std::unique_ptr<double[]>    ap_values; /* PtAP: A P's values, ap.nblocks() blocks of A.rbs x P.cbs; not
                                              zeroed here: each numeric row zeroes its own (first touch) */
  size_t                       ap_scalars = 0;
  std::vector<bsrk_idx>        pt_rowptr;          /* PtAP: P^T's structure, [P.nbcols + 1] */
  std::vector<bsrk_idx>        pt_row;             /* PtAP: entry e of P^T is block (pt_row[e], column) of P, */
  std::vector<bsrk_idx>        pt_block;           /*       P's block pt_block[e]; increasing pt_row in a row */
  bsrk_blockproduct::Structure c;                  /* PtAP: the result */
  std::vector<bsrk_idx>        markers;            /* numeric: a marker array over C's block columns per thread */
  double                       flops    = 0.0;     /* of one numeric phase */
  void                        *attached = nullptr; /* the caller's (bsrk_block_product_attach) */
  void (*release)(void *)               = nullptr;

  bsrk_block_product()                                      = default;
  bsrk_block_product(const bsrk_block_product &)            = delete;
  bsrk_block_product &operator=(const bsrk_block_product &) = delete;
  ~bsrk_block_product()
  {
    if (release) release(attached);
  }

  const bsrk_blockproduct::Structure &result() const { return kind == BSRK_PRODUCT_AP ? ap : c; }
  bsrk_idx                            result_rbs() const { return kind == BSRK_PRODUCT_AP ? A.rbs : P.cbs; }
  size_t                              bytes() const
  {
    const size_t idx = ap.rowptr.size() + ap.colidx.size() + pt_rowptr.size() + pt_row.size() + pt_block.size() + c.rowptr.size() + c.colidx.size() + markers.size();
    return sizeof(*this) + idx * sizeof(bsrk_idx) + ap_scalars * sizeof(double);
  }
};

#endif

// MatrixObject: block assignment keeps the metadata in step with the data.
#include "instructions/matrix_object.h"

namespace dmlrt::inst {

void MatrixObject::set_block(std::shared_ptr<const kernels::MatrixBlock> block) {
  block_ = std::move(block);
  if (block_) {
    meta_.rows = block_->rows();
    meta_.cols = block_->cols();
    meta_.nnz = block_->nnz();
  }
}

void MatrixObject::set_block(kernels::MatrixBlock block) {
  set_block(std::make_shared<const kernels::MatrixBlock>(std::move(block)));
}

}  // namespace dmlrt::inst

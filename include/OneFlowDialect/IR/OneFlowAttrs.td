//===- OneFlowAttrs.td - SBP, placement and encodings ------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWATTRS_TD
#define ONEFLOWDIALECT_IR_ONEFLOWATTRS_TD

include "OneFlowDialect/IR/OneFlowBase.td"
include "mlir/IR/TensorEncoding.td"

def OneFlow_SbpAttr : OneFlow_Attr<"Sbp", "sbp"> {
  let summary = "how one mesh axis lays out a tensor: S(axis), B or P";
  let description = [{
    One entry of OneFlow's SBP for a single axis of a device mesh:

    * `S(i)`: the tensor is split along its axis `i` into balanced parts
      (10 over 4 parts gives 3, 3, 2, 2);
    * `B`: every device of the axis holds the whole tensor;
    * `P`: every device holds a tensor of the full shape, and the logical
      tensor is their element-wise sum;
    * `P(max)`, `P(min)`: partial with another reduction, the element-wise
      maximum or minimum of the pieces (a reduce_max over a split axis).
      `P(sum)` parses as `P`.

    ```mlir
    #oneflow.sbp<S(1)>   #oneflow.sbp<B>   #oneflow.sbp<P>   #oneflow.sbp<P(max)>
    ```
  }];
  let parameters = (ins "SbpKind":$kind, "int64_t":$axis,
                        "PartialReduction":$reduction);
  let builders = [
    AttrBuilder<(ins "SbpKind":$kind, "int64_t":$axis), [{
      return $_get($_ctxt, kind, axis, PartialReduction::sum);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static SbpAttr getSplit(::mlir::MLIRContext *ctx, int64_t axis) {
      return get(ctx, SbpKind::split, axis);
    }
    static SbpAttr getBroadcast(::mlir::MLIRContext *ctx) {
      return get(ctx, SbpKind::broadcast, 0);
    }
    static SbpAttr getPartial(::mlir::MLIRContext *ctx,
        PartialReduction reduction = PartialReduction::sum) {
      return get(ctx, SbpKind::partial, 0, reduction);
    }
    bool isSplit() const { return getKind() == SbpKind::split; }
    bool isBroadcast() const { return getKind() == SbpKind::broadcast; }
    /// Partial with any reduction.
    bool isPartial() const { return getKind() == SbpKind::partial; }
    /// Partial sum (`P`).
    bool isPartialSum() const {
      return isPartial() && getReduction() == PartialReduction::sum;
    }

    /// Parses `S(i)`, `B`, `P` or `P(max)`... (the body without the
    /// `#oneflow.sbp<>`).
    static SbpAttr parseBody(::mlir::AsmParser &parser);
    /// Prints `S(i)`, `B`, `P`, `P(max)` or `P(min)`.
    void printBody(::mlir::AsmPrinter &printer) const;
  }];
}

def OneFlow_NdSbpAttr : OneFlow_Attr<"NdSbp", "nd_sbp"> {
  let summary = "one SBP per axis of a placement's device mesh";
  let description = [{
    ```mlir
    #oneflow.nd_sbp<[S(0), B]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"SbpAttr">:$sbps);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    size_t size() const { return getSbps().size(); }
    SbpAttr operator[](size_t i) const { return getSbps()[i]; }
    auto begin() const { return getSbps().begin(); }
    auto end() const { return getSbps().end(); }

    /// Parses `[S(0), B, ...]`.
    static NdSbpAttr parseList(::mlir::AsmParser &parser);
    /// Prints `[S(0), B, ...]`.
    void printList(::mlir::AsmPrinter &printer) const;
  }];
}

def OneFlow_PlacementAttr : OneFlow_Attr<"Placement", "placement"> {
  let summary = "device kind, ranks and device-mesh shape";
  let description = [{
    The devices a tensor or op lives on: one device per rank, arranged
    row-major into a mesh. Without `mesh`, the mesh is one axis over all
    ranks.

    ```mlir
    #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>
    #oneflow.placement<cuda, ranks = [4, 5]>
    ```
  }];
  let parameters = (ins "DeviceKind":$device,
                        ArrayRefParameter<"int64_t">:$ranks,
                        ArrayRefParameter<"int64_t">:$mesh);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumRanks() const { return getRanks().size(); }
    int64_t getMeshRank() const { return getMesh().size(); }
    /// The position of `rank` in the ranks list, or -1 if it is not there.
    int64_t getParallelId(int64_t rank) const;
  }];
}

def OneFlow_GlobalAttr : OneFlow_Attr<"Global", "global",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "tensor encoding: placement and nd-SBP of a global tensor";
  let description = [{
    Attached to a ranked tensor type as its encoding. The type's shape is
    the logical (global) shape; the placement's mesh and the nd-SBP say how
    each rank's physical piece is cut from it.

    ```mlir
    tensor<64x128xf32, #oneflow.global<#oneflow.placement<cpu,
        ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(0), B]>>
    ```
  }];
  let parameters = (ins "PlacementAttr":$placement, "NdSbpAttr":$nd_sbp);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def OneFlow_InitializerAttr : OneFlow_Attr<"Initializer", "init"> {
  let summary = "how a variable's initial value is generated";
  let description = [{
    ```mlir
    #oneflow.init<zeros>            #oneflow.init<ones>
    #oneflow.init<constant(0.5)>    #oneflow.init<uniform(-0.1, 0.1)>
    #oneflow.init<normal(0.0, 0.02)>
    #oneflow.init<xavier_uniform>   #oneflow.init<kaiming_uniform>
    ```
    `normal` takes mean and standard deviation, `uniform` the bounds.
  }];
  let parameters = (ins "InitKind":$kind, ArrayRefParameter<"::llvm::APFloat">:$args);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // ONEFLOWDIALECT_IR_ONEFLOWATTRS_TD

use super::*;
use crate::consteval::ConstEval;

/// The module around `JitGlobalsPass` of a two-layer BertForMaskedLM of
/// bert-base's vocabulary and width, as iree-compile 3.13 prints it with
/// constants elided, cut to three of its sixteen initializers.
const BEFORE: &str = r#"// -----// IR Dump Before JitGlobalsPass: iree-consteval-jit-globals{target-registry=unknown} //----- //
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__device_0 = #device_target_local
  util.global private @__hoisted_tensor_128x768xf32 {stream.affinity.default = #hal.device.affinity<@__device_0>} : tensor<128x768xf32>
  util.initializer attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant dense_resource<torch_tensor_2_768_torch.float32> : tensor<2x768xf32>
    %cst_1 = arith.constant dense_resource<torch_tensor_1_512_torch.int64> : tensor<1x512xi64>
    %extracted_slice = tensor.extract_slice %cst_1[0, 0] [1, 128] [1, 1] : tensor<1x512xi64> to tensor<128xi64>
    %3 = tensor.empty() : tensor<128x768xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<128xi64>) outs(%3 : tensor<128x768xf32>) {
    ^bb0(%in: i64, %out: f32):
      %5 = arith.index_cast %in : i64 to index
      %6 = linalg.index 1 : index
      %extracted = tensor.extract %cst[%5, %6] : tensor<2x768xf32>
      linalg.yield %extracted : f32
    } -> tensor<128x768xf32>
    util.global.store %4, @__hoisted_tensor_128x768xf32 : tensor<128x768xf32>
    util.return
  }
  util.global private @__hoisted_tensor_1x768x768xf32 {stream.affinity.default = #hal.device.affinity<@__device_0>} : tensor<1x768x768xf32>
  util.initializer attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
    %cst = arith.constant dense_resource<torch_tensor_768_768_torch.float32> : tensor<768x768xf32>
    %expanded = tensor.expand_shape %cst [[0], [1, 2]] output_shape [768, 1, 768] : tensor<768x768xf32> into tensor<768x1x768xf32>
    %0 = tensor.empty() : tensor<1x768x768xf32>
    %1 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded : tensor<768x1x768xf32>) outs(%0 : tensor<1x768x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x768x768xf32>
    util.global.store %1, @__hoisted_tensor_1x768x768xf32 : tensor<1x768x768xf32>
    util.return
  }
  util.global private @__hoisted_tensor_1x768x30522xf32 {stream.affinity.default = #hal.device.affinity<@__device_0>} : tensor<1x768x30522xf32>
  util.initializer attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
    %cst = arith.constant dense_resource<torch_tensor_30522_768_torch.float32> : tensor<30522x768xf32>
    %expanded = tensor.expand_shape %cst [[0], [1, 2]] output_shape [30522, 1, 768] : tensor<30522x768xf32> into tensor<30522x1x768xf32>
    %0 = tensor.empty() : tensor<1x768x30522xf32>
    %1 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded : tensor<30522x1x768xf32>) outs(%0 : tensor<1x768x30522xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x768x30522xf32>
    util.global.store %1, @__hoisted_tensor_1x768x30522xf32 : tensor<1x768x30522xf32>
    util.return
  }
  util.func public @main$async(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %cst_35 = arith.constant dense_resource<torch_tensor_30522_768_torch.float32> : tensor<30522x768xf32>
    %h = util.global.load immutable @__hoisted_tensor_1x768x30522xf32 : tensor<1x768x30522xf32>
    util.return %arg0 : !hal.buffer_view
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_768_768_torch.float32: "__elided__"
    }
  }
#-}
"#;

const AFTER: &str = r#"// -----// IR Dump After JitGlobalsPass: iree-consteval-jit-globals{target-registry=unknown} //----- //
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__device_0 = #device_target_local
  util.global private @__hoisted_tensor_128x768xf32 {stream.affinity.default = #hal.device.affinity<@__device_0>} = dense_resource<__elided__> : tensor<128x768xf32>
  util.global private @__hoisted_tensor_1x768x768xf32 {stream.affinity.default = #hal.device.affinity<@__device_0>} = dense_resource<__elided__> : tensor<1x768x768xf32>
  util.global private @__hoisted_tensor_1x768x30522xf32 {stream.affinity.default = #hal.device.affinity<@__device_0>} = dense_resource<__elided__> : tensor<1x768x30522xf32>
  util.func public @main$async(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %cst_35 = arith.constant dense_resource<torch_tensor_30522_768_torch.float32> : tensor<30522x768xf32>
    %h = util.global.load immutable @__hoisted_tensor_1x768x30522xf32 : tensor<1x768x30522xf32>
    util.return %arg0 : !hal.buffer_view
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_768_768_torch.float32: "__elided__"
    }
  }
#-}
"#;

#[test]
fn the_transposed_embedding_is_named_with_its_input_kept_and_the_bytes_it_adds() {
    let consteval = ConstEval::from_files([AFTER, BEFORE]).unwrap();
    let embedding = &consteval.globals[0];
    assert_eq!(embedding.name, "__hoisted_tensor_1x768x30522xf32");
    assert_eq!(embedding.function, "jit_eval_1");
    assert_eq!(embedding.ty, "tensor<1x768x30522xf32>");
    assert_eq!(embedding.bytes, Some(93_763_584));
    assert_eq!(embedding.ops, ["reshape", "transpose"]);
    assert_eq!(embedding.inputs.len(), 1);
    let input = &embedding.inputs[0];
    assert_eq!(
        (
            input.kind,
            input.name.as_str(),
            input.ty.as_str(),
            input.bytes
        ),
        (
            InputKind::Resource,
            "torch_tensor_30522_768_torch.float32",
            "tensor<30522x768xf32>",
            Some(93_763_584)
        )
    );
    assert!(input.kept && embedding.inputs_kept);
    assert_eq!(embedding.added_bytes, Some(93_763_584));
}

#[test]
fn a_weight_whose_original_dies_adds_nothing_and_a_gather_adds_its_result_less_its_inputs() {
    let consteval = ConstEval::from_dumps(BEFORE, AFTER);
    let by_name = |name: &str| {
        consteval
            .globals
            .iter()
            .find(|global| global.name == name)
            .unwrap()
    };
    let weight = by_name("__hoisted_tensor_1x768x768xf32");
    assert_eq!(weight.function, "jit_eval_0");
    assert!(!weight.inputs_kept);
    assert_eq!(weight.added_bytes, Some(0));
    let positions = by_name("__hoisted_tensor_128x768xf32");
    assert_eq!(positions.function, "jit_eval");
    assert_eq!(positions.ops, ["slice", "gather"]);
    assert_eq!(positions.inputs.len(), 2, "the scalar constant is no input");
    // 128×768 f32 made of a 2×768 f32 table and 512 i64 positions.
    assert_eq!(
        positions.added_bytes,
        Some(128 * 768 * 4 - 2 * 768 * 4 - 512 * 8)
    );
    assert_eq!(consteval.added_bytes, 93_763_584 + 393_216 - 6_144 - 4_096);
    assert_eq!(
        consteval.global_bytes,
        93_763_584 + 768 * 768 * 4 + 128 * 768 * 4
    );
}

#[test]
fn an_initializer_the_pass_left_alone_is_not_a_const_eval_global() {
    let after = AFTER.replace(
        "@__hoisted_tensor_1x768x768xf32 {stream.affinity.default = #hal.device.affinity<@__device_0>} = dense_resource<__elided__>",
        "@__hoisted_tensor_1x768x768xf32 {stream.affinity.default = #hal.device.affinity<@__device_0>}",
    );
    let consteval = ConstEval::from_dumps(BEFORE, &after);
    assert_eq!(consteval.globals.len(), 2);
    let embedding = &consteval.globals[0];
    assert_eq!(
        embedding.function, "jit_eval_0",
        "numbered among the JIT'd only"
    );
}

#[test]
fn maps_say_transpose_broadcast_or_copy() {
    assert_eq!(
        map_shape("affine_map<(d0, d1, d2) -> (d2, d0, d1)>"),
        MapShape::Permutation
    );
    assert_eq!(
        map_shape("affine_map<(d0, d1) -> (d1)>"),
        MapShape::Broadcast
    );
    assert_eq!(
        map_shape("affine_map<(d0, d1) -> (d0, d1)>"),
        MapShape::Identity
    );
    assert_eq!(map_shape("affine_map<(d0, d1) -> ()>"), MapShape::Broadcast);
    assert_eq!(map_shape("affine_map<(d0) -> (d0 * 2)>"), MapShape::Other);
}

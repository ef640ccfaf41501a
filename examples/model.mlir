#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: tensor<32x128xf32>, %w0: tensor<128x224xf32>, %b0: tensor<224xf32>, %w1: tensor<224x96xf32>, %b1: tensor<96xf32>, %w2: tensor<96x96xf32>, %b2: tensor<96xf32>, %w3: tensor<96x80xf32>, %b3: tensor<80xf32>, %w4: tensor<80x160xf32>, %b4: tensor<160xf32>, %w5: tensor<160x48xf32>, %b5: tensor<48xf32>, %w6: tensor<48x112xf32>, %b6: tensor<112xf32>, %w7: tensor<112x192xf32>, %b7: tensor<192xf32>, %w8: tensor<192x224xf32>, %b8: tensor<224xf32>, %w9: tensor<224x160xf32>, %b9: tensor<160xf32>, %w10: tensor<160x256xf32>, %b10: tensor<256xf32>, %w11: tensor<256x48xf32>, %b11: tensor<48xf32>, %w12: tensor<48x64xf32>, %b12: tensor<64xf32>, %w13: tensor<64x128xf32>, %b13: tensor<128xf32>, %w14: tensor<128x128xf32>, %b14: tensor<128xf32>, %w15: tensor<128x128xf32>, %b15: tensor<128xf32>, %w16: tensor<128x80xf32>, %b16: tensor<80xf32>, %w17: tensor<80x256xf32>, %b17: tensor<256xf32>, %w18: tensor<256x80xf32>, %b18: tensor<80xf32>, %w19: tensor<80x64xf32>, %b19: tensor<64xf32>, %w20: tensor<64x192xf32>, %b20: tensor<192xf32>, %w21: tensor<192x128xf32>, %b21: tensor<128xf32>, %w22: tensor<128x64xf32>, %b22: tensor<64xf32>, %w23: tensor<64x256xf32>, %b23: tensor<256xf32>, %w24: tensor<256x64xf32>, %b24: tensor<64xf32>, %w25: tensor<64x256xf32>, %b25: tensor<256xf32>, %w26: tensor<256x96xf32>, %b26: tensor<96xf32>, %w27: tensor<96x80xf32>, %b27: tensor<80xf32>, %w28: tensor<80x64xf32>, %b28: tensor<64xf32>, %w29: tensor<64x128xf32>, %b29: tensor<128xf32>, %w30: tensor<128x224xf32>, %b30: tensor<224xf32>, %w31: tensor<224x128xf32>, %b31: tensor<128xf32>, %w32: tensor<128x80xf32>, %b32: tensor<80xf32>, %w33: tensor<80x256xf32>, %b33: tensor<256xf32>, %w34: tensor<256x256xf32>, %b34: tensor<256xf32>, %w35: tensor<256x128xf32>, %b35: tensor<128xf32>, %w36: tensor<128x128xf32>, %b36: tensor<128xf32>, %w37: tensor<128x224xf32>, %b37: tensor<224xf32>, %w38: tensor<224x64xf32>, %b38: tensor<64xf32>, %w39: tensor<64x64xf32>, %b39: tensor<64xf32>, %w40: tensor<64x80xf32>, %b40: tensor<80xf32>, %w41: tensor<80x128xf32>, %b41: tensor<128xf32>, %w42: tensor<128x64xf32>, %b42: tensor<64xf32>, %w43: tensor<64x96xf32>, %b43: tensor<96xf32>, %w44: tensor<96x48xf32>, %b44: tensor<48xf32>, %w45: tensor<48x80xf32>, %b45: tensor<80xf32>, %w46: tensor<80x224xf32>, %b46: tensor<224xf32>, %w47: tensor<224x64xf32>, %b47: tensor<64xf32>, %w48: tensor<64x80xf32>, %b48: tensor<80xf32>, %w49: tensor<80x64xf32>, %b49: tensor<64xf32>, %w50: tensor<64x192xf32>, %b50: tensor<192xf32>, %w51: tensor<192x256xf32>, %b51: tensor<256xf32>, %w52: tensor<256x96xf32>, %b52: tensor<96xf32>, %w53: tensor<96x160xf32>, %b53: tensor<160xf32>, %w54: tensor<160x224xf32>, %b54: tensor<224xf32>, %w55: tensor<224x64xf32>, %b55: tensor<64xf32>, %w56: tensor<64x128xf32>, %b56: tensor<128xf32>, %w57: tensor<128x256xf32>, %b57: tensor<256xf32>, %w58: tensor<256x80xf32>, %b58: tensor<80xf32>, %w59: tensor<80x192xf32>, %b59: tensor<192xf32>, %w60: tensor<192x192xf32>, %b60: tensor<192xf32>, %w61: tensor<192x192xf32>, %b61: tensor<192xf32>, %w62: tensor<192x80xf32>, %b62: tensor<80xf32>, %w63: tensor<80x160xf32>, %b63: tensor<160xf32>, %w64: tensor<160x128xf32>, %b64: tensor<128xf32>, %w65: tensor<128x64xf32>, %b65: tensor<64xf32>, %w66: tensor<64x256xf32>, %b66: tensor<256xf32>, %w67: tensor<256x128xf32>, %b67: tensor<128xf32>, %w68: tensor<128x256xf32>, %b68: tensor<256xf32>, %w69: tensor<256x192xf32>, %b69: tensor<192xf32>, %w70: tensor<192x160xf32>, %b70: tensor<160xf32>, %w71: tensor<160x96xf32>, %b71: tensor<96xf32>, %w72: tensor<96x160xf32>, %b72: tensor<160xf32>, %w73: tensor<160x160xf32>, %b73: tensor<160xf32>, %w74: tensor<160x128xf32>, %b74: tensor<128xf32>, %w75: tensor<128x224xf32>, %b75: tensor<224xf32>, %w76: tensor<224x80xf32>, %b76: tensor<80xf32>, %w77: tensor<80x192xf32>, %b77: tensor<192xf32>, %w78: tensor<192x48xf32>, %b78: tensor<48xf32>, %w79: tensor<48x96xf32>, %b79: tensor<96xf32>) -> tensor<32x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<32x224xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %mm0 = linalg.matmul ins(%x, %w0 : tensor<32x128xf32>, tensor<128x224xf32>) outs(%f0 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %act0 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm0, %b0 : tensor<32x224xf32>, tensor<224xf32>) outs(%e0 : tensor<32x224xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x224xf32>
  %e1 = tensor.empty() : tensor<32x96xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %mm1 = linalg.matmul ins(%act0, %w1 : tensor<32x224xf32>, tensor<224x96xf32>) outs(%f1 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %act1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm1, %b1 : tensor<32x96xf32>, tensor<96xf32>) outs(%e1 : tensor<32x96xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x96xf32>
  %e2 = tensor.empty() : tensor<32x96xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %mm2 = linalg.matmul ins(%act1, %w2 : tensor<32x96xf32>, tensor<96x96xf32>) outs(%f2 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %act2 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm2, %b2 : tensor<32x96xf32>, tensor<96xf32>) outs(%e2 : tensor<32x96xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x96xf32>
  %re2 = tensor.empty() : tensor<32xf32>
  %rf2 = linalg.fill ins(%zero : f32) outs(%re2 : tensor<32xf32>) -> tensor<32xf32>
  %sum2 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act2 : tensor<32x96xf32>) outs(%rf2 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm2 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act2, %sum2 : tensor<32x96xf32>, tensor<32xf32>) outs(%e2 : tensor<32x96xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 1.04166667e-02 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x96xf32>
  %e3 = tensor.empty() : tensor<32x80xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %mm3 = linalg.matmul ins(%nrm2, %w3 : tensor<32x96xf32>, tensor<96x80xf32>) outs(%f3 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %act3 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm3, %b3 : tensor<32x80xf32>, tensor<80xf32>) outs(%e3 : tensor<32x80xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x80xf32>
  %e4 = tensor.empty() : tensor<32x160xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %mm4 = linalg.matmul ins(%act3, %w4 : tensor<32x80xf32>, tensor<80x160xf32>) outs(%f4 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %act4 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm4, %b4 : tensor<32x160xf32>, tensor<160xf32>) outs(%e4 : tensor<32x160xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x160xf32>
  %e5 = tensor.empty() : tensor<32x48xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %mm5 = linalg.matmul ins(%act4, %w5 : tensor<32x160xf32>, tensor<160x48xf32>) outs(%f5 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %act5 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm5, %b5 : tensor<32x48xf32>, tensor<48xf32>) outs(%e5 : tensor<32x48xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x48xf32>
  %re5 = tensor.empty() : tensor<32xf32>
  %rf5 = linalg.fill ins(%zero : f32) outs(%re5 : tensor<32xf32>) -> tensor<32xf32>
  %sum5 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act5 : tensor<32x48xf32>) outs(%rf5 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm5 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act5, %sum5 : tensor<32x48xf32>, tensor<32xf32>) outs(%e5 : tensor<32x48xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 2.08333333e-02 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x48xf32>
  %e6 = tensor.empty() : tensor<32x112xf32>
  %f6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<32x112xf32>) -> tensor<32x112xf32>
  %mm6 = linalg.matmul ins(%nrm5, %w6 : tensor<32x48xf32>, tensor<48x112xf32>) outs(%f6 : tensor<32x112xf32>) -> tensor<32x112xf32>
  %act6 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm6, %b6 : tensor<32x112xf32>, tensor<112xf32>) outs(%e6 : tensor<32x112xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x112xf32>
  %e7 = tensor.empty() : tensor<32x192xf32>
  %f7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %mm7 = linalg.matmul ins(%act6, %w7 : tensor<32x112xf32>, tensor<112x192xf32>) outs(%f7 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %act7 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm7, %b7 : tensor<32x192xf32>, tensor<192xf32>) outs(%e7 : tensor<32x192xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x192xf32>
  %e8 = tensor.empty() : tensor<32x224xf32>
  %f8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %mm8 = linalg.matmul ins(%act7, %w8 : tensor<32x192xf32>, tensor<192x224xf32>) outs(%f8 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %act8 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm8, %b8 : tensor<32x224xf32>, tensor<224xf32>) outs(%e8 : tensor<32x224xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x224xf32>
  %re8 = tensor.empty() : tensor<32xf32>
  %rf8 = linalg.fill ins(%zero : f32) outs(%re8 : tensor<32xf32>) -> tensor<32xf32>
  %sum8 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act8 : tensor<32x224xf32>) outs(%rf8 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm8 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act8, %sum8 : tensor<32x224xf32>, tensor<32xf32>) outs(%e8 : tensor<32x224xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 4.46428571e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x224xf32>
  %e9 = tensor.empty() : tensor<32x160xf32>
  %f9 = linalg.fill ins(%zero : f32) outs(%e9 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %mm9 = linalg.matmul ins(%nrm8, %w9 : tensor<32x224xf32>, tensor<224x160xf32>) outs(%f9 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %act9 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm9, %b9 : tensor<32x160xf32>, tensor<160xf32>) outs(%e9 : tensor<32x160xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x160xf32>
  %e10 = tensor.empty() : tensor<32x256xf32>
  %f10 = linalg.fill ins(%zero : f32) outs(%e10 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %mm10 = linalg.matmul ins(%act9, %w10 : tensor<32x160xf32>, tensor<160x256xf32>) outs(%f10 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %act10 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm10, %b10 : tensor<32x256xf32>, tensor<256xf32>) outs(%e10 : tensor<32x256xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x256xf32>
  %e11 = tensor.empty() : tensor<32x48xf32>
  %f11 = linalg.fill ins(%zero : f32) outs(%e11 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %mm11 = linalg.matmul ins(%act10, %w11 : tensor<32x256xf32>, tensor<256x48xf32>) outs(%f11 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %act11 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm11, %b11 : tensor<32x48xf32>, tensor<48xf32>) outs(%e11 : tensor<32x48xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x48xf32>
  %re11 = tensor.empty() : tensor<32xf32>
  %rf11 = linalg.fill ins(%zero : f32) outs(%re11 : tensor<32xf32>) -> tensor<32xf32>
  %sum11 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act11 : tensor<32x48xf32>) outs(%rf11 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm11 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act11, %sum11 : tensor<32x48xf32>, tensor<32xf32>) outs(%e11 : tensor<32x48xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 2.08333333e-02 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x48xf32>
  %e12 = tensor.empty() : tensor<32x64xf32>
  %f12 = linalg.fill ins(%zero : f32) outs(%e12 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm12 = linalg.matmul ins(%nrm11, %w12 : tensor<32x48xf32>, tensor<48x64xf32>) outs(%f12 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %act12 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm12, %b12 : tensor<32x64xf32>, tensor<64xf32>) outs(%e12 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %e13 = tensor.empty() : tensor<32x128xf32>
  %f13 = linalg.fill ins(%zero : f32) outs(%e13 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm13 = linalg.matmul ins(%act12, %w13 : tensor<32x64xf32>, tensor<64x128xf32>) outs(%f13 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %act13 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm13, %b13 : tensor<32x128xf32>, tensor<128xf32>) outs(%e13 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %e14 = tensor.empty() : tensor<32x128xf32>
  %f14 = linalg.fill ins(%zero : f32) outs(%e14 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm14 = linalg.matmul ins(%act13, %w14 : tensor<32x128xf32>, tensor<128x128xf32>) outs(%f14 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %act14 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm14, %b14 : tensor<32x128xf32>, tensor<128xf32>) outs(%e14 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %re14 = tensor.empty() : tensor<32xf32>
  %rf14 = linalg.fill ins(%zero : f32) outs(%re14 : tensor<32xf32>) -> tensor<32xf32>
  %sum14 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act14 : tensor<32x128xf32>) outs(%rf14 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm14 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act14, %sum14 : tensor<32x128xf32>, tensor<32xf32>) outs(%e14 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 7.81250000e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x128xf32>
  %e15 = tensor.empty() : tensor<32x128xf32>
  %f15 = linalg.fill ins(%zero : f32) outs(%e15 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm15 = linalg.matmul ins(%nrm14, %w15 : tensor<32x128xf32>, tensor<128x128xf32>) outs(%f15 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %act15 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm15, %b15 : tensor<32x128xf32>, tensor<128xf32>) outs(%e15 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %e16 = tensor.empty() : tensor<32x80xf32>
  %f16 = linalg.fill ins(%zero : f32) outs(%e16 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %mm16 = linalg.matmul ins(%act15, %w16 : tensor<32x128xf32>, tensor<128x80xf32>) outs(%f16 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %act16 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm16, %b16 : tensor<32x80xf32>, tensor<80xf32>) outs(%e16 : tensor<32x80xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x80xf32>
  %e17 = tensor.empty() : tensor<32x256xf32>
  %f17 = linalg.fill ins(%zero : f32) outs(%e17 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %mm17 = linalg.matmul ins(%act16, %w17 : tensor<32x80xf32>, tensor<80x256xf32>) outs(%f17 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %act17 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm17, %b17 : tensor<32x256xf32>, tensor<256xf32>) outs(%e17 : tensor<32x256xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x256xf32>
  %re17 = tensor.empty() : tensor<32xf32>
  %rf17 = linalg.fill ins(%zero : f32) outs(%re17 : tensor<32xf32>) -> tensor<32xf32>
  %sum17 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act17 : tensor<32x256xf32>) outs(%rf17 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm17 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act17, %sum17 : tensor<32x256xf32>, tensor<32xf32>) outs(%e17 : tensor<32x256xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 3.90625000e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x256xf32>
  %e18 = tensor.empty() : tensor<32x80xf32>
  %f18 = linalg.fill ins(%zero : f32) outs(%e18 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %mm18 = linalg.matmul ins(%nrm17, %w18 : tensor<32x256xf32>, tensor<256x80xf32>) outs(%f18 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %act18 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm18, %b18 : tensor<32x80xf32>, tensor<80xf32>) outs(%e18 : tensor<32x80xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x80xf32>
  %e19 = tensor.empty() : tensor<32x64xf32>
  %f19 = linalg.fill ins(%zero : f32) outs(%e19 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm19 = linalg.matmul ins(%act18, %w19 : tensor<32x80xf32>, tensor<80x64xf32>) outs(%f19 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %act19 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm19, %b19 : tensor<32x64xf32>, tensor<64xf32>) outs(%e19 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %e20 = tensor.empty() : tensor<32x192xf32>
  %f20 = linalg.fill ins(%zero : f32) outs(%e20 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %mm20 = linalg.matmul ins(%act19, %w20 : tensor<32x64xf32>, tensor<64x192xf32>) outs(%f20 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %act20 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm20, %b20 : tensor<32x192xf32>, tensor<192xf32>) outs(%e20 : tensor<32x192xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x192xf32>
  %re20 = tensor.empty() : tensor<32xf32>
  %rf20 = linalg.fill ins(%zero : f32) outs(%re20 : tensor<32xf32>) -> tensor<32xf32>
  %sum20 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act20 : tensor<32x192xf32>) outs(%rf20 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm20 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act20, %sum20 : tensor<32x192xf32>, tensor<32xf32>) outs(%e20 : tensor<32x192xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 5.20833333e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x192xf32>
  %e21 = tensor.empty() : tensor<32x128xf32>
  %f21 = linalg.fill ins(%zero : f32) outs(%e21 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm21 = linalg.matmul ins(%nrm20, %w21 : tensor<32x192xf32>, tensor<192x128xf32>) outs(%f21 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %act21 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm21, %b21 : tensor<32x128xf32>, tensor<128xf32>) outs(%e21 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %e22 = tensor.empty() : tensor<32x64xf32>
  %f22 = linalg.fill ins(%zero : f32) outs(%e22 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm22 = linalg.matmul ins(%act21, %w22 : tensor<32x128xf32>, tensor<128x64xf32>) outs(%f22 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %act22 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm22, %b22 : tensor<32x64xf32>, tensor<64xf32>) outs(%e22 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %e23 = tensor.empty() : tensor<32x256xf32>
  %f23 = linalg.fill ins(%zero : f32) outs(%e23 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %mm23 = linalg.matmul ins(%act22, %w23 : tensor<32x64xf32>, tensor<64x256xf32>) outs(%f23 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %act23 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm23, %b23 : tensor<32x256xf32>, tensor<256xf32>) outs(%e23 : tensor<32x256xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x256xf32>
  %re23 = tensor.empty() : tensor<32xf32>
  %rf23 = linalg.fill ins(%zero : f32) outs(%re23 : tensor<32xf32>) -> tensor<32xf32>
  %sum23 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act23 : tensor<32x256xf32>) outs(%rf23 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm23 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act23, %sum23 : tensor<32x256xf32>, tensor<32xf32>) outs(%e23 : tensor<32x256xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 3.90625000e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x256xf32>
  %e24 = tensor.empty() : tensor<32x64xf32>
  %f24 = linalg.fill ins(%zero : f32) outs(%e24 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm24 = linalg.matmul ins(%nrm23, %w24 : tensor<32x256xf32>, tensor<256x64xf32>) outs(%f24 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %act24 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm24, %b24 : tensor<32x64xf32>, tensor<64xf32>) outs(%e24 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %e25 = tensor.empty() : tensor<32x256xf32>
  %f25 = linalg.fill ins(%zero : f32) outs(%e25 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %mm25 = linalg.matmul ins(%act24, %w25 : tensor<32x64xf32>, tensor<64x256xf32>) outs(%f25 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %act25 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm25, %b25 : tensor<32x256xf32>, tensor<256xf32>) outs(%e25 : tensor<32x256xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x256xf32>
  %e26 = tensor.empty() : tensor<32x96xf32>
  %f26 = linalg.fill ins(%zero : f32) outs(%e26 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %mm26 = linalg.matmul ins(%act25, %w26 : tensor<32x256xf32>, tensor<256x96xf32>) outs(%f26 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %act26 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm26, %b26 : tensor<32x96xf32>, tensor<96xf32>) outs(%e26 : tensor<32x96xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x96xf32>
  %re26 = tensor.empty() : tensor<32xf32>
  %rf26 = linalg.fill ins(%zero : f32) outs(%re26 : tensor<32xf32>) -> tensor<32xf32>
  %sum26 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act26 : tensor<32x96xf32>) outs(%rf26 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm26 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act26, %sum26 : tensor<32x96xf32>, tensor<32xf32>) outs(%e26 : tensor<32x96xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 1.04166667e-02 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x96xf32>
  %e27 = tensor.empty() : tensor<32x80xf32>
  %f27 = linalg.fill ins(%zero : f32) outs(%e27 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %mm27 = linalg.matmul ins(%nrm26, %w27 : tensor<32x96xf32>, tensor<96x80xf32>) outs(%f27 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %act27 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm27, %b27 : tensor<32x80xf32>, tensor<80xf32>) outs(%e27 : tensor<32x80xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x80xf32>
  %e28 = tensor.empty() : tensor<32x64xf32>
  %f28 = linalg.fill ins(%zero : f32) outs(%e28 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm28 = linalg.matmul ins(%act27, %w28 : tensor<32x80xf32>, tensor<80x64xf32>) outs(%f28 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %act28 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm28, %b28 : tensor<32x64xf32>, tensor<64xf32>) outs(%e28 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %e29 = tensor.empty() : tensor<32x128xf32>
  %f29 = linalg.fill ins(%zero : f32) outs(%e29 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm29 = linalg.matmul ins(%act28, %w29 : tensor<32x64xf32>, tensor<64x128xf32>) outs(%f29 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %act29 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm29, %b29 : tensor<32x128xf32>, tensor<128xf32>) outs(%e29 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %re29 = tensor.empty() : tensor<32xf32>
  %rf29 = linalg.fill ins(%zero : f32) outs(%re29 : tensor<32xf32>) -> tensor<32xf32>
  %sum29 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act29 : tensor<32x128xf32>) outs(%rf29 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm29 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act29, %sum29 : tensor<32x128xf32>, tensor<32xf32>) outs(%e29 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 7.81250000e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x128xf32>
  %e30 = tensor.empty() : tensor<32x224xf32>
  %f30 = linalg.fill ins(%zero : f32) outs(%e30 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %mm30 = linalg.matmul ins(%nrm29, %w30 : tensor<32x128xf32>, tensor<128x224xf32>) outs(%f30 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %act30 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm30, %b30 : tensor<32x224xf32>, tensor<224xf32>) outs(%e30 : tensor<32x224xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x224xf32>
  %e31 = tensor.empty() : tensor<32x128xf32>
  %f31 = linalg.fill ins(%zero : f32) outs(%e31 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm31 = linalg.matmul ins(%act30, %w31 : tensor<32x224xf32>, tensor<224x128xf32>) outs(%f31 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %act31 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm31, %b31 : tensor<32x128xf32>, tensor<128xf32>) outs(%e31 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %e32 = tensor.empty() : tensor<32x80xf32>
  %f32 = linalg.fill ins(%zero : f32) outs(%e32 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %mm32 = linalg.matmul ins(%act31, %w32 : tensor<32x128xf32>, tensor<128x80xf32>) outs(%f32 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %act32 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm32, %b32 : tensor<32x80xf32>, tensor<80xf32>) outs(%e32 : tensor<32x80xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x80xf32>
  %re32 = tensor.empty() : tensor<32xf32>
  %rf32 = linalg.fill ins(%zero : f32) outs(%re32 : tensor<32xf32>) -> tensor<32xf32>
  %sum32 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act32 : tensor<32x80xf32>) outs(%rf32 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm32 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act32, %sum32 : tensor<32x80xf32>, tensor<32xf32>) outs(%e32 : tensor<32x80xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 1.25000000e-02 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x80xf32>
  %e33 = tensor.empty() : tensor<32x256xf32>
  %f33 = linalg.fill ins(%zero : f32) outs(%e33 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %mm33 = linalg.matmul ins(%nrm32, %w33 : tensor<32x80xf32>, tensor<80x256xf32>) outs(%f33 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %act33 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm33, %b33 : tensor<32x256xf32>, tensor<256xf32>) outs(%e33 : tensor<32x256xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x256xf32>
  %e34 = tensor.empty() : tensor<32x256xf32>
  %f34 = linalg.fill ins(%zero : f32) outs(%e34 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %mm34 = linalg.matmul ins(%act33, %w34 : tensor<32x256xf32>, tensor<256x256xf32>) outs(%f34 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %act34 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm34, %b34 : tensor<32x256xf32>, tensor<256xf32>) outs(%e34 : tensor<32x256xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x256xf32>
  %e35 = tensor.empty() : tensor<32x128xf32>
  %f35 = linalg.fill ins(%zero : f32) outs(%e35 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm35 = linalg.matmul ins(%act34, %w35 : tensor<32x256xf32>, tensor<256x128xf32>) outs(%f35 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %act35 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm35, %b35 : tensor<32x128xf32>, tensor<128xf32>) outs(%e35 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %re35 = tensor.empty() : tensor<32xf32>
  %rf35 = linalg.fill ins(%zero : f32) outs(%re35 : tensor<32xf32>) -> tensor<32xf32>
  %sum35 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act35 : tensor<32x128xf32>) outs(%rf35 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm35 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act35, %sum35 : tensor<32x128xf32>, tensor<32xf32>) outs(%e35 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 7.81250000e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x128xf32>
  %e36 = tensor.empty() : tensor<32x128xf32>
  %f36 = linalg.fill ins(%zero : f32) outs(%e36 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm36 = linalg.matmul ins(%nrm35, %w36 : tensor<32x128xf32>, tensor<128x128xf32>) outs(%f36 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %act36 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm36, %b36 : tensor<32x128xf32>, tensor<128xf32>) outs(%e36 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %e37 = tensor.empty() : tensor<32x224xf32>
  %f37 = linalg.fill ins(%zero : f32) outs(%e37 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %mm37 = linalg.matmul ins(%act36, %w37 : tensor<32x128xf32>, tensor<128x224xf32>) outs(%f37 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %act37 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm37, %b37 : tensor<32x224xf32>, tensor<224xf32>) outs(%e37 : tensor<32x224xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x224xf32>
  %e38 = tensor.empty() : tensor<32x64xf32>
  %f38 = linalg.fill ins(%zero : f32) outs(%e38 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm38 = linalg.matmul ins(%act37, %w38 : tensor<32x224xf32>, tensor<224x64xf32>) outs(%f38 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %act38 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm38, %b38 : tensor<32x64xf32>, tensor<64xf32>) outs(%e38 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %re38 = tensor.empty() : tensor<32xf32>
  %rf38 = linalg.fill ins(%zero : f32) outs(%re38 : tensor<32xf32>) -> tensor<32xf32>
  %sum38 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act38 : tensor<32x64xf32>) outs(%rf38 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm38 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act38, %sum38 : tensor<32x64xf32>, tensor<32xf32>) outs(%e38 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 1.56250000e-02 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x64xf32>
  %e39 = tensor.empty() : tensor<32x64xf32>
  %f39 = linalg.fill ins(%zero : f32) outs(%e39 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm39 = linalg.matmul ins(%nrm38, %w39 : tensor<32x64xf32>, tensor<64x64xf32>) outs(%f39 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %act39 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm39, %b39 : tensor<32x64xf32>, tensor<64xf32>) outs(%e39 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %e40 = tensor.empty() : tensor<32x80xf32>
  %f40 = linalg.fill ins(%zero : f32) outs(%e40 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %mm40 = linalg.matmul ins(%act39, %w40 : tensor<32x64xf32>, tensor<64x80xf32>) outs(%f40 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %act40 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm40, %b40 : tensor<32x80xf32>, tensor<80xf32>) outs(%e40 : tensor<32x80xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x80xf32>
  %e41 = tensor.empty() : tensor<32x128xf32>
  %f41 = linalg.fill ins(%zero : f32) outs(%e41 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm41 = linalg.matmul ins(%act40, %w41 : tensor<32x80xf32>, tensor<80x128xf32>) outs(%f41 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %act41 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm41, %b41 : tensor<32x128xf32>, tensor<128xf32>) outs(%e41 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %re41 = tensor.empty() : tensor<32xf32>
  %rf41 = linalg.fill ins(%zero : f32) outs(%re41 : tensor<32xf32>) -> tensor<32xf32>
  %sum41 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act41 : tensor<32x128xf32>) outs(%rf41 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm41 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act41, %sum41 : tensor<32x128xf32>, tensor<32xf32>) outs(%e41 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 7.81250000e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x128xf32>
  %e42 = tensor.empty() : tensor<32x64xf32>
  %f42 = linalg.fill ins(%zero : f32) outs(%e42 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm42 = linalg.matmul ins(%nrm41, %w42 : tensor<32x128xf32>, tensor<128x64xf32>) outs(%f42 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %act42 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm42, %b42 : tensor<32x64xf32>, tensor<64xf32>) outs(%e42 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %e43 = tensor.empty() : tensor<32x96xf32>
  %f43 = linalg.fill ins(%zero : f32) outs(%e43 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %mm43 = linalg.matmul ins(%act42, %w43 : tensor<32x64xf32>, tensor<64x96xf32>) outs(%f43 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %act43 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm43, %b43 : tensor<32x96xf32>, tensor<96xf32>) outs(%e43 : tensor<32x96xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x96xf32>
  %e44 = tensor.empty() : tensor<32x48xf32>
  %f44 = linalg.fill ins(%zero : f32) outs(%e44 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %mm44 = linalg.matmul ins(%act43, %w44 : tensor<32x96xf32>, tensor<96x48xf32>) outs(%f44 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %act44 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm44, %b44 : tensor<32x48xf32>, tensor<48xf32>) outs(%e44 : tensor<32x48xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x48xf32>
  %re44 = tensor.empty() : tensor<32xf32>
  %rf44 = linalg.fill ins(%zero : f32) outs(%re44 : tensor<32xf32>) -> tensor<32xf32>
  %sum44 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act44 : tensor<32x48xf32>) outs(%rf44 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm44 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act44, %sum44 : tensor<32x48xf32>, tensor<32xf32>) outs(%e44 : tensor<32x48xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 2.08333333e-02 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x48xf32>
  %e45 = tensor.empty() : tensor<32x80xf32>
  %f45 = linalg.fill ins(%zero : f32) outs(%e45 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %mm45 = linalg.matmul ins(%nrm44, %w45 : tensor<32x48xf32>, tensor<48x80xf32>) outs(%f45 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %act45 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm45, %b45 : tensor<32x80xf32>, tensor<80xf32>) outs(%e45 : tensor<32x80xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x80xf32>
  %e46 = tensor.empty() : tensor<32x224xf32>
  %f46 = linalg.fill ins(%zero : f32) outs(%e46 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %mm46 = linalg.matmul ins(%act45, %w46 : tensor<32x80xf32>, tensor<80x224xf32>) outs(%f46 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %act46 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm46, %b46 : tensor<32x224xf32>, tensor<224xf32>) outs(%e46 : tensor<32x224xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x224xf32>
  %e47 = tensor.empty() : tensor<32x64xf32>
  %f47 = linalg.fill ins(%zero : f32) outs(%e47 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm47 = linalg.matmul ins(%act46, %w47 : tensor<32x224xf32>, tensor<224x64xf32>) outs(%f47 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %act47 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm47, %b47 : tensor<32x64xf32>, tensor<64xf32>) outs(%e47 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %re47 = tensor.empty() : tensor<32xf32>
  %rf47 = linalg.fill ins(%zero : f32) outs(%re47 : tensor<32xf32>) -> tensor<32xf32>
  %sum47 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act47 : tensor<32x64xf32>) outs(%rf47 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm47 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act47, %sum47 : tensor<32x64xf32>, tensor<32xf32>) outs(%e47 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 1.56250000e-02 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x64xf32>
  %e48 = tensor.empty() : tensor<32x80xf32>
  %f48 = linalg.fill ins(%zero : f32) outs(%e48 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %mm48 = linalg.matmul ins(%nrm47, %w48 : tensor<32x64xf32>, tensor<64x80xf32>) outs(%f48 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %act48 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm48, %b48 : tensor<32x80xf32>, tensor<80xf32>) outs(%e48 : tensor<32x80xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x80xf32>
  %e49 = tensor.empty() : tensor<32x64xf32>
  %f49 = linalg.fill ins(%zero : f32) outs(%e49 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm49 = linalg.matmul ins(%act48, %w49 : tensor<32x80xf32>, tensor<80x64xf32>) outs(%f49 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %act49 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm49, %b49 : tensor<32x64xf32>, tensor<64xf32>) outs(%e49 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %e50 = tensor.empty() : tensor<32x192xf32>
  %f50 = linalg.fill ins(%zero : f32) outs(%e50 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %mm50 = linalg.matmul ins(%act49, %w50 : tensor<32x64xf32>, tensor<64x192xf32>) outs(%f50 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %act50 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm50, %b50 : tensor<32x192xf32>, tensor<192xf32>) outs(%e50 : tensor<32x192xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x192xf32>
  %re50 = tensor.empty() : tensor<32xf32>
  %rf50 = linalg.fill ins(%zero : f32) outs(%re50 : tensor<32xf32>) -> tensor<32xf32>
  %sum50 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act50 : tensor<32x192xf32>) outs(%rf50 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm50 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act50, %sum50 : tensor<32x192xf32>, tensor<32xf32>) outs(%e50 : tensor<32x192xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 5.20833333e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x192xf32>
  %e51 = tensor.empty() : tensor<32x256xf32>
  %f51 = linalg.fill ins(%zero : f32) outs(%e51 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %mm51 = linalg.matmul ins(%nrm50, %w51 : tensor<32x192xf32>, tensor<192x256xf32>) outs(%f51 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %act51 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm51, %b51 : tensor<32x256xf32>, tensor<256xf32>) outs(%e51 : tensor<32x256xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x256xf32>
  %e52 = tensor.empty() : tensor<32x96xf32>
  %f52 = linalg.fill ins(%zero : f32) outs(%e52 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %mm52 = linalg.matmul ins(%act51, %w52 : tensor<32x256xf32>, tensor<256x96xf32>) outs(%f52 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %act52 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm52, %b52 : tensor<32x96xf32>, tensor<96xf32>) outs(%e52 : tensor<32x96xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x96xf32>
  %e53 = tensor.empty() : tensor<32x160xf32>
  %f53 = linalg.fill ins(%zero : f32) outs(%e53 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %mm53 = linalg.matmul ins(%act52, %w53 : tensor<32x96xf32>, tensor<96x160xf32>) outs(%f53 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %act53 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm53, %b53 : tensor<32x160xf32>, tensor<160xf32>) outs(%e53 : tensor<32x160xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x160xf32>
  %re53 = tensor.empty() : tensor<32xf32>
  %rf53 = linalg.fill ins(%zero : f32) outs(%re53 : tensor<32xf32>) -> tensor<32xf32>
  %sum53 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act53 : tensor<32x160xf32>) outs(%rf53 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm53 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act53, %sum53 : tensor<32x160xf32>, tensor<32xf32>) outs(%e53 : tensor<32x160xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 6.25000000e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x160xf32>
  %e54 = tensor.empty() : tensor<32x224xf32>
  %f54 = linalg.fill ins(%zero : f32) outs(%e54 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %mm54 = linalg.matmul ins(%nrm53, %w54 : tensor<32x160xf32>, tensor<160x224xf32>) outs(%f54 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %act54 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm54, %b54 : tensor<32x224xf32>, tensor<224xf32>) outs(%e54 : tensor<32x224xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x224xf32>
  %e55 = tensor.empty() : tensor<32x64xf32>
  %f55 = linalg.fill ins(%zero : f32) outs(%e55 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm55 = linalg.matmul ins(%act54, %w55 : tensor<32x224xf32>, tensor<224x64xf32>) outs(%f55 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %act55 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm55, %b55 : tensor<32x64xf32>, tensor<64xf32>) outs(%e55 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %e56 = tensor.empty() : tensor<32x128xf32>
  %f56 = linalg.fill ins(%zero : f32) outs(%e56 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm56 = linalg.matmul ins(%act55, %w56 : tensor<32x64xf32>, tensor<64x128xf32>) outs(%f56 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %act56 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm56, %b56 : tensor<32x128xf32>, tensor<128xf32>) outs(%e56 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %re56 = tensor.empty() : tensor<32xf32>
  %rf56 = linalg.fill ins(%zero : f32) outs(%re56 : tensor<32xf32>) -> tensor<32xf32>
  %sum56 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act56 : tensor<32x128xf32>) outs(%rf56 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm56 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act56, %sum56 : tensor<32x128xf32>, tensor<32xf32>) outs(%e56 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 7.81250000e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x128xf32>
  %e57 = tensor.empty() : tensor<32x256xf32>
  %f57 = linalg.fill ins(%zero : f32) outs(%e57 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %mm57 = linalg.matmul ins(%nrm56, %w57 : tensor<32x128xf32>, tensor<128x256xf32>) outs(%f57 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %act57 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm57, %b57 : tensor<32x256xf32>, tensor<256xf32>) outs(%e57 : tensor<32x256xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x256xf32>
  %e58 = tensor.empty() : tensor<32x80xf32>
  %f58 = linalg.fill ins(%zero : f32) outs(%e58 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %mm58 = linalg.matmul ins(%act57, %w58 : tensor<32x256xf32>, tensor<256x80xf32>) outs(%f58 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %act58 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm58, %b58 : tensor<32x80xf32>, tensor<80xf32>) outs(%e58 : tensor<32x80xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x80xf32>
  %e59 = tensor.empty() : tensor<32x192xf32>
  %f59 = linalg.fill ins(%zero : f32) outs(%e59 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %mm59 = linalg.matmul ins(%act58, %w59 : tensor<32x80xf32>, tensor<80x192xf32>) outs(%f59 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %act59 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm59, %b59 : tensor<32x192xf32>, tensor<192xf32>) outs(%e59 : tensor<32x192xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x192xf32>
  %re59 = tensor.empty() : tensor<32xf32>
  %rf59 = linalg.fill ins(%zero : f32) outs(%re59 : tensor<32xf32>) -> tensor<32xf32>
  %sum59 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act59 : tensor<32x192xf32>) outs(%rf59 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm59 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act59, %sum59 : tensor<32x192xf32>, tensor<32xf32>) outs(%e59 : tensor<32x192xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 5.20833333e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x192xf32>
  %e60 = tensor.empty() : tensor<32x192xf32>
  %f60 = linalg.fill ins(%zero : f32) outs(%e60 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %mm60 = linalg.matmul ins(%nrm59, %w60 : tensor<32x192xf32>, tensor<192x192xf32>) outs(%f60 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %act60 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm60, %b60 : tensor<32x192xf32>, tensor<192xf32>) outs(%e60 : tensor<32x192xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x192xf32>
  %e61 = tensor.empty() : tensor<32x192xf32>
  %f61 = linalg.fill ins(%zero : f32) outs(%e61 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %mm61 = linalg.matmul ins(%act60, %w61 : tensor<32x192xf32>, tensor<192x192xf32>) outs(%f61 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %act61 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm61, %b61 : tensor<32x192xf32>, tensor<192xf32>) outs(%e61 : tensor<32x192xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x192xf32>
  %e62 = tensor.empty() : tensor<32x80xf32>
  %f62 = linalg.fill ins(%zero : f32) outs(%e62 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %mm62 = linalg.matmul ins(%act61, %w62 : tensor<32x192xf32>, tensor<192x80xf32>) outs(%f62 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %act62 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm62, %b62 : tensor<32x80xf32>, tensor<80xf32>) outs(%e62 : tensor<32x80xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x80xf32>
  %re62 = tensor.empty() : tensor<32xf32>
  %rf62 = linalg.fill ins(%zero : f32) outs(%re62 : tensor<32xf32>) -> tensor<32xf32>
  %sum62 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act62 : tensor<32x80xf32>) outs(%rf62 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm62 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act62, %sum62 : tensor<32x80xf32>, tensor<32xf32>) outs(%e62 : tensor<32x80xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 1.25000000e-02 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x80xf32>
  %e63 = tensor.empty() : tensor<32x160xf32>
  %f63 = linalg.fill ins(%zero : f32) outs(%e63 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %mm63 = linalg.matmul ins(%nrm62, %w63 : tensor<32x80xf32>, tensor<80x160xf32>) outs(%f63 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %act63 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm63, %b63 : tensor<32x160xf32>, tensor<160xf32>) outs(%e63 : tensor<32x160xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x160xf32>
  %e64 = tensor.empty() : tensor<32x128xf32>
  %f64 = linalg.fill ins(%zero : f32) outs(%e64 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm64 = linalg.matmul ins(%act63, %w64 : tensor<32x160xf32>, tensor<160x128xf32>) outs(%f64 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %act64 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm64, %b64 : tensor<32x128xf32>, tensor<128xf32>) outs(%e64 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %e65 = tensor.empty() : tensor<32x64xf32>
  %f65 = linalg.fill ins(%zero : f32) outs(%e65 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm65 = linalg.matmul ins(%act64, %w65 : tensor<32x128xf32>, tensor<128x64xf32>) outs(%f65 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %act65 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm65, %b65 : tensor<32x64xf32>, tensor<64xf32>) outs(%e65 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %re65 = tensor.empty() : tensor<32xf32>
  %rf65 = linalg.fill ins(%zero : f32) outs(%re65 : tensor<32xf32>) -> tensor<32xf32>
  %sum65 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act65 : tensor<32x64xf32>) outs(%rf65 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm65 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act65, %sum65 : tensor<32x64xf32>, tensor<32xf32>) outs(%e65 : tensor<32x64xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 1.56250000e-02 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x64xf32>
  %e66 = tensor.empty() : tensor<32x256xf32>
  %f66 = linalg.fill ins(%zero : f32) outs(%e66 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %mm66 = linalg.matmul ins(%nrm65, %w66 : tensor<32x64xf32>, tensor<64x256xf32>) outs(%f66 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %act66 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm66, %b66 : tensor<32x256xf32>, tensor<256xf32>) outs(%e66 : tensor<32x256xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x256xf32>
  %e67 = tensor.empty() : tensor<32x128xf32>
  %f67 = linalg.fill ins(%zero : f32) outs(%e67 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm67 = linalg.matmul ins(%act66, %w67 : tensor<32x256xf32>, tensor<256x128xf32>) outs(%f67 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %act67 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm67, %b67 : tensor<32x128xf32>, tensor<128xf32>) outs(%e67 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %e68 = tensor.empty() : tensor<32x256xf32>
  %f68 = linalg.fill ins(%zero : f32) outs(%e68 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %mm68 = linalg.matmul ins(%act67, %w68 : tensor<32x128xf32>, tensor<128x256xf32>) outs(%f68 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %act68 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm68, %b68 : tensor<32x256xf32>, tensor<256xf32>) outs(%e68 : tensor<32x256xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x256xf32>
  %re68 = tensor.empty() : tensor<32xf32>
  %rf68 = linalg.fill ins(%zero : f32) outs(%re68 : tensor<32xf32>) -> tensor<32xf32>
  %sum68 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act68 : tensor<32x256xf32>) outs(%rf68 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm68 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act68, %sum68 : tensor<32x256xf32>, tensor<32xf32>) outs(%e68 : tensor<32x256xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 3.90625000e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x256xf32>
  %e69 = tensor.empty() : tensor<32x192xf32>
  %f69 = linalg.fill ins(%zero : f32) outs(%e69 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %mm69 = linalg.matmul ins(%nrm68, %w69 : tensor<32x256xf32>, tensor<256x192xf32>) outs(%f69 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %act69 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm69, %b69 : tensor<32x192xf32>, tensor<192xf32>) outs(%e69 : tensor<32x192xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x192xf32>
  %e70 = tensor.empty() : tensor<32x160xf32>
  %f70 = linalg.fill ins(%zero : f32) outs(%e70 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %mm70 = linalg.matmul ins(%act69, %w70 : tensor<32x192xf32>, tensor<192x160xf32>) outs(%f70 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %act70 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm70, %b70 : tensor<32x160xf32>, tensor<160xf32>) outs(%e70 : tensor<32x160xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x160xf32>
  %e71 = tensor.empty() : tensor<32x96xf32>
  %f71 = linalg.fill ins(%zero : f32) outs(%e71 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %mm71 = linalg.matmul ins(%act70, %w71 : tensor<32x160xf32>, tensor<160x96xf32>) outs(%f71 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %act71 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm71, %b71 : tensor<32x96xf32>, tensor<96xf32>) outs(%e71 : tensor<32x96xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x96xf32>
  %re71 = tensor.empty() : tensor<32xf32>
  %rf71 = linalg.fill ins(%zero : f32) outs(%re71 : tensor<32xf32>) -> tensor<32xf32>
  %sum71 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act71 : tensor<32x96xf32>) outs(%rf71 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm71 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act71, %sum71 : tensor<32x96xf32>, tensor<32xf32>) outs(%e71 : tensor<32x96xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 1.04166667e-02 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x96xf32>
  %e72 = tensor.empty() : tensor<32x160xf32>
  %f72 = linalg.fill ins(%zero : f32) outs(%e72 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %mm72 = linalg.matmul ins(%nrm71, %w72 : tensor<32x96xf32>, tensor<96x160xf32>) outs(%f72 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %act72 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm72, %b72 : tensor<32x160xf32>, tensor<160xf32>) outs(%e72 : tensor<32x160xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x160xf32>
  %e73 = tensor.empty() : tensor<32x160xf32>
  %f73 = linalg.fill ins(%zero : f32) outs(%e73 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %mm73 = linalg.matmul ins(%act72, %w73 : tensor<32x160xf32>, tensor<160x160xf32>) outs(%f73 : tensor<32x160xf32>) -> tensor<32x160xf32>
  %act73 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm73, %b73 : tensor<32x160xf32>, tensor<160xf32>) outs(%e73 : tensor<32x160xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x160xf32>
  %e74 = tensor.empty() : tensor<32x128xf32>
  %f74 = linalg.fill ins(%zero : f32) outs(%e74 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %mm74 = linalg.matmul ins(%act73, %w74 : tensor<32x160xf32>, tensor<160x128xf32>) outs(%f74 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %act74 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm74, %b74 : tensor<32x128xf32>, tensor<128xf32>) outs(%e74 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %re74 = tensor.empty() : tensor<32xf32>
  %rf74 = linalg.fill ins(%zero : f32) outs(%re74 : tensor<32xf32>) -> tensor<32xf32>
  %sum74 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act74 : tensor<32x128xf32>) outs(%rf74 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm74 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act74, %sum74 : tensor<32x128xf32>, tensor<32xf32>) outs(%e74 : tensor<32x128xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 7.81250000e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x128xf32>
  %e75 = tensor.empty() : tensor<32x224xf32>
  %f75 = linalg.fill ins(%zero : f32) outs(%e75 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %mm75 = linalg.matmul ins(%nrm74, %w75 : tensor<32x128xf32>, tensor<128x224xf32>) outs(%f75 : tensor<32x224xf32>) -> tensor<32x224xf32>
  %act75 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm75, %b75 : tensor<32x224xf32>, tensor<224xf32>) outs(%e75 : tensor<32x224xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.exp %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x224xf32>
  %e76 = tensor.empty() : tensor<32x80xf32>
  %f76 = linalg.fill ins(%zero : f32) outs(%e76 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %mm76 = linalg.matmul ins(%act75, %w76 : tensor<32x224xf32>, tensor<224x80xf32>) outs(%f76 : tensor<32x80xf32>) -> tensor<32x80xf32>
  %act76 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm76, %b76 : tensor<32x80xf32>, tensor<80xf32>) outs(%e76 : tensor<32x80xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = math.tanh %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x80xf32>
  %e77 = tensor.empty() : tensor<32x192xf32>
  %f77 = linalg.fill ins(%zero : f32) outs(%e77 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %mm77 = linalg.matmul ins(%act76, %w77 : tensor<32x80xf32>, tensor<80x192xf32>) outs(%f77 : tensor<32x192xf32>) -> tensor<32x192xf32>
  %act77 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm77, %b77 : tensor<32x192xf32>, tensor<192xf32>) outs(%e77 : tensor<32x192xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a0, %z : f32
    linalg.yield %y : f32
  } -> tensor<32x192xf32>
  %re77 = tensor.empty() : tensor<32xf32>
  %rf77 = linalg.fill ins(%zero : f32) outs(%re77 : tensor<32xf32>) -> tensor<32xf32>
  %sum77 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%act77 : tensor<32x192xf32>) outs(%rf77 : tensor<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %nrm77 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%act77, %sum77 : tensor<32x192xf32>, tensor<32xf32>) outs(%e77 : tensor<32x192xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %inv = arith.constant 5.20833333e-03 : f32
    %mean = arith.mulf %s, %inv : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x192xf32>
  %e78 = tensor.empty() : tensor<32x48xf32>
  %f78 = linalg.fill ins(%zero : f32) outs(%e78 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %mm78 = linalg.matmul ins(%nrm77, %w78 : tensor<32x192xf32>, tensor<192x48xf32>) outs(%f78 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %act78 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm78, %b78 : tensor<32x48xf32>, tensor<48xf32>) outs(%e78 : tensor<32x48xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %n = arith.negf %a0 : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %y = arith.divf %one, %d : f32
    linalg.yield %y : f32
  } -> tensor<32x48xf32>
  %e79 = tensor.empty() : tensor<32x96xf32>
  %f79 = linalg.fill ins(%zero : f32) outs(%e79 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %mm79 = linalg.matmul ins(%act78, %w79 : tensor<32x48xf32>, tensor<48x96xf32>) outs(%f79 : tensor<32x96xf32>) -> tensor<32x96xf32>
  %act79 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm79, %b79 : tensor<32x96xf32>, tensor<96xf32>) outs(%e79 : tensor<32x96xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a0 = arith.addf %v, %bias : f32
    %y = arith.mulf %a0, %a0 : f32
    linalg.yield %y : f32
  } -> tensor<32x96xf32>
  return %act79 : tensor<32x96xf32>
}

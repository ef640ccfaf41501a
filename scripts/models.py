#!/usr/bin/env python3
"""Export real PyTorch models to MLIR with IREE's own FX importer.

Run with the Python of the models venv that scripts/models.sh makes (torch,
transformers, torchvision and iree-base-compiler); scripts/models.sh is the
usual way in. Each model is built from its config with random weights (there
is no model hub here), seeded, so the same NAME gives the same weights, and
exported with

    torch.export.export(model, args, strict=False)
    iree.compiler.extras.fx_importer.FxImporter().import_frozen_program(...)

with every weight inlined as a resource blob, as a user who compiles the
model's .mlir with iree-compile has it. The traps this works around:

- the importer finds lifted buffers only in the state dict, so every buffer
  is made persistent before export;
- decoders get a prepared 4D boolean causal mask as an input (without it
  transformers 5 emits ops IREE cannot legalize);
- CNNs have batch norm folded into their convolutions and the exported
  program decomposed (`run_decompositions({})`).

Usage:
    python scripts/models.py --list
    python scripts/models.py NAME --out FILE
"""

import argparse
import sys

SEED = 20261207
SEQUENCE = 128


def _persistent_buffers(model):
    """Re-register every non-persistent buffer as persistent."""
    for module in model.modules():
        module._non_persistent_buffers_set.clear()
    return model


def _bert(layers):
    import torch
    from transformers import BertConfig, BertForMaskedLM

    # bert-base-uncased's config: vocabulary 30522, hidden size 768.
    config = BertConfig(
        vocab_size=30522,
        hidden_size=768,
        num_hidden_layers=layers,
        num_attention_heads=12,
        intermediate_size=3072,
        max_position_embeddings=512,
        attn_implementation="eager",
    )
    model = BertForMaskedLM(config).eval()

    class Logits(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids):
            return self.inner(input_ids=input_ids).logits

    input_ids = torch.randint(0, config.vocab_size, (1, SEQUENCE))
    return Logits(model), (input_ids,)


def _causal_mask():
    import torch

    return torch.ones(SEQUENCE, SEQUENCE, dtype=torch.bool).tril()[None, None]


def _decoder(model, vocab_size):
    import torch

    class Logits(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, use_cache=False
            ).logits

    input_ids = torch.randint(0, vocab_size, (1, SEQUENCE))
    return Logits(model.eval()), (input_ids, _causal_mask())


def _gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel

    # GPT-2 small (124M): the library's default config.
    config = GPT2Config(attn_implementation="eager")
    return _decoder(GPT2LMHeadModel(config), config.vocab_size)


def _llama():
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=32000,
        hidden_size=512,
        intermediate_size=1376,
        num_hidden_layers=4,
        num_attention_heads=8,
        num_key_value_heads=8,
        max_position_embeddings=512,
        attn_implementation="eager",
    )
    return _decoder(LlamaForCausalLM(config), config.vocab_size)


def _resnet50():
    import torch
    import torchvision
    from torch.fx.experimental.optimization import fuse

    model = fuse(torchvision.models.resnet50(weights=None).eval())
    return model, (torch.randn(1, 3, 224, 224),)


# name -> (what it is, builder, whether the exported program is decomposed)
MODELS = {
    "bert-mlm": ("BertForMaskedLM, bert-base config (12 layers), 128 tokens", lambda: _bert(12), False),
    "bert-mlm-2l": ("BertForMaskedLM, bert-base vocabulary and width, 2 layers", lambda: _bert(2), False),
    "gpt2": ("GPT2LMHeadModel, GPT-2 small config, 128 tokens, causal mask input", _gpt2, False),
    "llama-small": ("LlamaForCausalLM, 4 layers of width 512, 128 tokens", _llama, False),
    "resnet50": ("torchvision ResNet-50, batch norm folded, 224x224", _resnet50, True),
}


def export(name, out):
    import torch
    from iree.compiler.extras.fx_importer import FxImporter

    torch.manual_seed(SEED)
    _, build, decompose = MODELS[name]
    model, args = build()
    _persistent_buffers(model)
    with torch.no_grad():
        program = torch.export.export(model, args, strict=False)
    if decompose:
        program = program.run_decompositions({})
    importer = FxImporter()
    importer.import_frozen_program(program, func_name="main")
    with open(out, "w") as f:
        importer.module.operation.print(file=f, large_elements_limit=None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name", nargs="?", choices=sorted(MODELS))
    parser.add_argument("--out", help="the .mlir file to write")
    parser.add_argument("--list", action="store_true", help="list the models")
    args = parser.parse_args()
    if args.list:
        for name, (what, _, _) in MODELS.items():
            print(f"{name}\t{what}")
        return 0
    if not args.name or not args.out:
        parser.error("NAME and --out are needed (or --list)")
    export(args.name, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

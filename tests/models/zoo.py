"""The model zoo: real architectures in tiny configurations, built offline from config classes.

Every model is made from its transformers config class with random weights under a fixed
seed (no hub, never a download), one or two layers wide, so that a forward costs
milliseconds and the compile is what the tests and the benchmark measure.  Each entry
gives the model, the arguments of its forward in eval, and the keyword arguments that
make the forward return a loss for a training step.  `bench/` imports this module too.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch

VOCAB = 64


@dataclass(frozen=True)
class Arch:
    name: str
    family: str  # decoder, encoder, encoder-decoder, vision, audio
    make: Callable[[], tuple[torch.nn.Module, tuple, dict]]  # -> model, eval args, training kwargs


def _ids(batch: int = 2, length: int = 8) -> torch.Tensor:
    return torch.randint(0, VOCAB, (batch, length))


def _quiet_transformers():
    import transformers
    transformers.logging.set_verbosity_error()
    return transformers


def _causal(config_name: str, model_name: str, **config):
    def make():
        tf = _quiet_transformers()
        model = getattr(tf, model_name)(getattr(tf, config_name)(vocab_size=VOCAB, **config))
        ids = _ids()
        return model, (ids,), {"labels": ids}
    return make


def _encoder(config_name: str, model_name: str, **config):
    def make():
        tf = _quiet_transformers()
        model = getattr(tf, model_name)(getattr(tf, config_name)(vocab_size=VOCAB, num_labels=3, **config))
        return model, (_ids(),), {"labels": torch.tensor([0, 2])}
    return make


def _seq2seq(config_name: str, model_name: str, **config):
    def make():
        tf = _quiet_transformers()
        model = getattr(tf, model_name)(getattr(tf, config_name)(vocab_size=VOCAB, **config))
        ids, target = _ids(), _ids(2, 6)
        return model, (ids, None, target), {"labels": target}
    return make


def _vision(config_name: str, model_name: str, size: int, **config):
    def make():
        tf = _quiet_transformers()
        model = getattr(tf, model_name)(getattr(tf, config_name)(num_labels=3, **config))
        return model, (torch.randn(2, 3, size, size),), {"labels": torch.tensor([1, 2])}
    return make


def _whisper():
    tf = _quiet_transformers()
    config = tf.WhisperConfig(encoder_layers=1, decoder_layers=1, d_model=16, encoder_ffn_dim=32,
                              decoder_ffn_dim=32, encoder_attention_heads=2, decoder_attention_heads=2,
                              vocab_size=VOCAB, num_mel_bins=8, max_source_positions=8, max_target_positions=8,
                              decoder_start_token_id=1, pad_token_id=0)
    model = tf.WhisperForConditionalGeneration(config)
    target = _ids(2, 4)
    return model, (torch.randn(2, 8, 16), None, target), {"labels": target}


def _wav2vec2():
    tf = _quiet_transformers()
    config = tf.Wav2Vec2Config(num_hidden_layers=1, hidden_size=16, intermediate_size=32, num_attention_heads=2,
                               conv_dim=(8, 8), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                               num_conv_pos_embedding_groups=2, vocab_size=VOCAB, num_labels=3,
                               mask_time_prob=0.0)  # SpecAugment draws with NumPy, differently under Dynamo
    model = tf.Wav2Vec2ForSequenceClassification(config)
    return model, (torch.randn(2, 400),), {"labels": torch.tensor([0, 1])}


_SMALL = {"num_hidden_layers": 1, "hidden_size": 16, "intermediate_size": 32, "num_attention_heads": 2,
          "max_position_embeddings": 32}
_GQA = {**_SMALL, "num_attention_heads": 4, "num_key_value_heads": 2}
_SEQ2SEQ = {"encoder_layers": 1, "decoder_layers": 1, "d_model": 16, "encoder_ffn_dim": 32, "decoder_ffn_dim": 32,
            "encoder_attention_heads": 2, "decoder_attention_heads": 2, "max_position_embeddings": 32}

ARCHS = [
    Arch("gpt2", "decoder", _causal("GPT2Config", "GPT2LMHeadModel", n_layer=1, n_embd=16, n_head=2, n_positions=32)),
    Arch("llama", "decoder", _causal("LlamaConfig", "LlamaForCausalLM", **_GQA)),
    Arch("qwen2", "decoder", _causal("Qwen2Config", "Qwen2ForCausalLM", **_GQA)),
    Arch("opt", "decoder", _causal("OPTConfig", "OPTForCausalLM", num_hidden_layers=1, hidden_size=16, ffn_dim=32,
                                   num_attention_heads=2, max_position_embeddings=32, word_embed_proj_dim=16)),
    Arch("bert", "encoder", _encoder("BertConfig", "BertForSequenceClassification", **_SMALL)),
    Arch("roberta", "encoder", _encoder("RobertaConfig", "RobertaForSequenceClassification", **_SMALL)),
    Arch("distilbert", "encoder", _encoder("DistilBertConfig", "DistilBertForSequenceClassification", n_layers=1,
                                           dim=16, hidden_dim=32, n_heads=2, max_position_embeddings=32)),
    Arch("t5", "encoder-decoder", _seq2seq("T5Config", "T5ForConditionalGeneration", num_layers=1,
                                           num_decoder_layers=1, d_model=16, d_ff=32, num_heads=2, d_kv=8)),
    Arch("bart", "encoder-decoder", _seq2seq("BartConfig", "BartForConditionalGeneration", **_SEQ2SEQ)),
    Arch("vit", "vision", _vision("ViTConfig", "ViTForImageClassification", 16, num_hidden_layers=1, hidden_size=16,
                                  intermediate_size=32, num_attention_heads=2, image_size=16, patch_size=4)),
    Arch("convnext", "vision", _vision("ConvNextConfig", "ConvNextForImageClassification", 32, num_stages=2,
                                       hidden_sizes=[8, 16], depths=[1, 1], image_size=32)),
    Arch("resnet", "vision", _vision("ResNetConfig", "ResNetForImageClassification", 32, embedding_size=8,
                                     hidden_sizes=[8, 16], depths=[1, 1])),
    Arch("whisper", "audio", _whisper),
    Arch("wav2vec2", "audio", _wav2vec2),
]
BY_NAME = {arch.name: arch for arch in ARCHS}


def build(name: str, *, train: bool = False):
    """(model, eval args, training kwargs) of one architecture, made afresh under a fixed seed."""
    torch.manual_seed(0)
    model, args, train_kwargs = BY_NAME[name].make()
    return (model.train() if train else model.eval()), args, train_kwargs

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
    family: str  # decoder, encoder, encoder-decoder, vision, audio, multimodal
    make: Callable[[], tuple[torch.nn.Module, tuple, dict]]  # -> model, eval args, training kwargs
    # Whether the tests run its training step too: off where the training path is one an earlier
    # architecture already takes (measured equal to Dynamo's, README), to keep the zoo's test time short.
    train: bool = True
    # Whether the suite runs it at all: off for architectures slow to compile whose code paths others
    # take already (measured equal to Dynamo's once, eval and training, README).
    suite: bool = True


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


def _wavlm():
    tf = _quiet_transformers()
    config = tf.WavLMConfig(num_hidden_layers=1, hidden_size=16, intermediate_size=32, num_attention_heads=2,
                            conv_dim=(8, 8), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                            num_conv_pos_embedding_groups=2, vocab_size=VOCAB, num_labels=3, num_buckets=32,
                            max_bucket_distance=64, mask_time_prob=0.0)
    model = tf.WavLMForSequenceClassification(config)
    return model, (torch.randn(2, 400),), {"labels": torch.tensor([0, 1])}


def _clip():
    tf = _quiet_transformers()
    text = {"vocab_size": VOCAB, "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
            "num_attention_heads": 2, "max_position_embeddings": 32}
    vision = {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
              "image_size": 16, "patch_size": 4}
    model = tf.CLIPModel(tf.CLIPConfig(text_config=text, vision_config=vision, projection_dim=8))
    return model, (_ids(), torch.randn(2, 3, 16, 16)), {"return_loss": True}


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
    # Session 3: architectures whose code takes other paths (rotary variants, parallel attention, GQA
    # without bias, disentangled attention, shared layers, bottlenecks, windows, overlapping patches).
    Arch("mistral", "decoder", _causal("MistralConfig", "MistralForCausalLM", **_GQA), train=False),
    Arch("gemma", "decoder", _causal("GemmaConfig", "GemmaForCausalLM", **_GQA, head_dim=8), train=False),
    Arch("phi", "decoder", _causal("PhiConfig", "PhiForCausalLM", **_SMALL), train=False),
    Arch("gpt_neox", "decoder", _causal("GPTNeoXConfig", "GPTNeoXForCausalLM", **_SMALL), train=False),
    Arch("falcon", "decoder", _causal("FalconConfig", "FalconForCausalLM", num_hidden_layers=1, hidden_size=16,
                                      num_attention_heads=2), train=False),
    Arch("gptj", "decoder", _causal("GPTJConfig", "GPTJForCausalLM", n_layer=1, n_embd=16, n_head=2, n_positions=32,
                                    rotary_dim=4), train=False),
    Arch("deberta_v2", "encoder", _encoder("DebertaV2Config", "DebertaV2ForSequenceClassification", **_SMALL)),
    Arch("albert", "encoder", _encoder("AlbertConfig", "AlbertForSequenceClassification", **_SMALL,
                                       embedding_size=8), train=False),
    Arch("electra", "encoder", _encoder("ElectraConfig", "ElectraForSequenceClassification", **_SMALL,
                                        embedding_size=8), train=False),
    Arch("mobilebert", "encoder", _encoder("MobileBertConfig", "MobileBertForSequenceClassification",
                                           **_SMALL, embedding_size=8, intra_bottleneck_size=8,
                                           true_hidden_size=8, num_feedforward_networks=1)),
    Arch("xlm_roberta", "encoder", _encoder("XLMRobertaConfig", "XLMRobertaForSequenceClassification", **_SMALL),
         train=False),
    Arch("mbart", "encoder-decoder", _seq2seq("MBartConfig", "MBartForConditionalGeneration", **_SEQ2SEQ)),
    Arch("pegasus", "encoder-decoder", _seq2seq("PegasusConfig", "PegasusForConditionalGeneration", **_SEQ2SEQ),
         train=False),
    Arch("swin", "vision", _vision("SwinConfig", "SwinForImageClassification", 32, image_size=32, patch_size=4,
                                   embed_dim=8, depths=[1, 1], num_heads=[2, 2], window_size=4)),
    Arch("deit", "vision", _vision("DeiTConfig", "DeiTForImageClassification", 16, num_hidden_layers=1,
                                   hidden_size=16, intermediate_size=32, num_attention_heads=2, image_size=16,
                                   patch_size=4), train=False),
    Arch("segformer", "vision", _vision("SegformerConfig", "SegformerForImageClassification", 32,
                                        num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[8, 16],
                                        num_attention_heads=[1, 2], patch_sizes=[7, 3], strides=[4, 2],
                                        mlp_ratios=[2, 2], decoder_hidden_size=16)),
    Arch("clip", "multimodal", _clip),
    # Session 7: mixture-of-experts routing, ALiBi, multi-query attention, sliding and local windows,
    # logit soft-capping, unpadded attention, pooling between blocks, relative position biases, a custom
# torch.autograd.Function (BLOOM's GeLU).
    Arch("bloom", "decoder", _causal("BloomConfig", "BloomForCausalLM", n_layer=1, hidden_size=16, n_head=2)),
    Arch("mixtral", "decoder", _causal("MixtralConfig", "MixtralForCausalLM", **_GQA, num_local_experts=4,
                                       num_experts_per_tok=2), train=False),
    Arch("qwen2_moe", "decoder", _causal("Qwen2MoeConfig", "Qwen2MoeForCausalLM", **_GQA, num_experts=4,
                                         num_experts_per_tok=2, moe_intermediate_size=16,
                                         shared_expert_intermediate_size=32), train=False, suite=False),
    Arch("phi3", "decoder", _causal("Phi3Config", "Phi3ForCausalLM", **_GQA, pad_token_id=0), train=False,
         suite=False),
    Arch("gemma2", "decoder", _causal("Gemma2Config", "Gemma2ForCausalLM", **_GQA, head_dim=8, sliding_window=4),
         train=False),
    Arch("cohere", "decoder", _causal("CohereConfig", "CohereForCausalLM", **_GQA), train=False, suite=False),
    Arch("starcoder2", "decoder", _causal("Starcoder2Config", "Starcoder2ForCausalLM", **_GQA), train=False,
         suite=False),
    Arch("olmo2", "decoder", _causal("Olmo2Config", "Olmo2ForCausalLM", **_GQA), train=False, suite=False),
    Arch("gpt_bigcode", "decoder", _causal("GPTBigCodeConfig", "GPTBigCodeForCausalLM", n_layer=1, n_embd=16,
                                           n_head=2, n_positions=32), train=False, suite=False),
    Arch("mpt", "decoder", _causal("MptConfig", "MptForCausalLM", n_layers=1, d_model=16, n_heads=2,
                                   max_seq_len=32), train=False, suite=False),
    Arch("gpt_neo", "decoder", _causal("GPTNeoConfig", "GPTNeoForCausalLM", num_layers=2, hidden_size=16,
                                       num_heads=2, attention_types=[[["global", "local"], 1]], window_size=4,
                                       max_position_embeddings=32), train=False, suite=False),
    Arch("modernbert", "encoder", _encoder("ModernBertConfig", "ModernBertForSequenceClassification",
                                           **_SMALL, pad_token_id=0), train=False),
    Arch("funnel", "encoder", _encoder("FunnelConfig", "FunnelForSequenceClassification", block_sizes=[1, 1],
                                       d_model=16, n_head=2, d_head=8, d_inner=32), train=False, suite=False),
    Arch("led", "encoder-decoder", _seq2seq("LEDConfig", "LEDForConditionalGeneration", **{
        k: v for k, v in _SEQ2SEQ.items() if k != "max_position_embeddings"}, max_encoder_position_embeddings=32,
        max_decoder_position_embeddings=32, attention_window=4), train=False, suite=False),
    Arch("beit", "vision", _vision("BeitConfig", "BeitForImageClassification", 16, num_hidden_layers=1,
                                   hidden_size=16, intermediate_size=32, num_attention_heads=2, image_size=16,
                                   patch_size=4, use_relative_position_bias=True), train=False),
    Arch("wavlm", "audio", _wavlm, train=False),
]
BY_NAME = {arch.name: arch for arch in ARCHS}


def build(name: str, *, train: bool = False):
    """(model, eval args, training kwargs) of one architecture, made afresh under a fixed seed."""
    torch.manual_seed(0)
    model, args, train_kwargs = BY_NAME[name].make()
    return (model.train() if train else model.eval()), args, train_kwargs

"""The rewritten code's loads of the graph inputs, each shared path read once.

A module's parameters reach the graph as Sources like
`L['self']._modules['layers']._modules['3']._parameters['weight']`; loaded one by one,
every parameter reads the whole path again (three attribute reads of an nn.Module,
which CPython cannot specialise since nn.Module defines __getattr__, and three dict
reads).  As Dynamo's codegen does, a prefix that several inputs share is read once
into a temporary, and each input is read from the longest prefix kept: 50 Linear
layers load their 100 parameters with one attribute read each instead of three,
and `self._modules['layers']._modules` is read once.  The temporaries are deleted
right after the graph call, so the frame holds nothing more than before.

Only attribute and item reads are kept this way (the links a module's state is
reached through); any other link is read where its input needs it, as before.
"""
from __future__ import annotations

import collections
import dataclasses

from .source import AttrSource, ChainedSource, GetItemSource, Source

KEPT_LINKS = (AttrSource, GetItemSource)


@dataclasses.dataclass(frozen=True)
class KeptSource(Source):
    """A prefix already read into a temporary of the rewritten code."""

    temp: str
    source: Source

    def name(self) -> str:
        return self.source.name()

    def reconstruct(self, codegen) -> None:
        codegen.load(self.temp)


class SharedInputLoads:
    """Emit the graph inputs' loads into `cg`, prefixes shared by two or more read once."""

    def __init__(self, cg, sources: list[Source]):
        self.cg = cg
        self.sources = sources
        self.kept: dict[Source, KeptSource] = {}
        uses = collections.Counter(prefix for source in dict.fromkeys(sources)
                                   for prefix in _keepable_prefixes(source))
        # a prefix all of whose uses go through one longer prefix is read only to read that one: not kept
        through = {prefix.base for prefix, count in uses.items() if uses.get(prefix.base) == count}
        self.shared = [prefix for prefix, count in uses.items() if count > 1 and prefix not in through]

    def keep_shared(self) -> None:
        """Read each shared prefix into a temporary (shorter ones first, so longer ones build on them)."""
        for prefix in sorted(self.shared, key=lambda source: len(source.chain())):
            self._over_kept(prefix).reconstruct(self.cg)
            temp = self.cg.new_temp("___input_path")
            self.cg.store(temp)
            self.kept[prefix] = KeptSource(temp, prefix)

    def push_inputs(self) -> None:
        for source in self.sources:
            self._over_kept(source).reconstruct(self.cg)

    def forget_kept(self) -> None:
        for kept in self.kept.values():
            self.cg.emit("DELETE_FAST", kept.temp)

    def _over_kept(self, source: Source) -> Source:
        """`source` rebuilt over the longest of its prefixes already kept."""
        kept = self.kept.get(source)
        if kept is not None:
            return kept
        if isinstance(source, ChainedSource) and any(link in self.kept for link in source.chain()[:-1]):
            return dataclasses.replace(source, base=self._over_kept(source.base))
        return source


def _keepable_prefixes(source: Source) -> list[Source]:
    """The proper prefixes of `source` worth a temporary: attribute or item links all the way from a root."""
    chain = source.chain()
    prefixes = []
    for link in chain[1:-1]:
        if not isinstance(link, KEPT_LINKS):
            break
        prefixes.append(link)
    return prefixes

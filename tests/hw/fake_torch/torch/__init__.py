"""A stand-in for PyTorch with no GPU behind it, for the recorders' tests (tests/hw/torch_launch_state_fake.sh):
every object, call and attribute is one inert value, and the CUDA calls whose time the recorders measure take
a little wall time (torch.cuda._sleep its cycles at 2 GHz, synchronize 100 us). Nothing is computed."""
import time

__version__ = "0.0-stand-in"


class _Inert:
    def __getattr__(self, name):
        return self

    def __call__(self, *args, **kwargs):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __iter__(self):
        return iter(())


_INERT = _Inert()


def __getattr__(name):
    return _INERT


class _Cuda(_Inert):
    @staticmethod
    def _sleep(cycles):
        time.sleep(cycles / 2e9)

    @staticmethod
    def synchronize():
        time.sleep(0.0001)


cuda = _Cuda()

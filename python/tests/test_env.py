"""The gym-style environments: observations, rewards and episode ends checked against the cost
model, and the speed of a random policy."""
import time

import numpy as np
import pytest

import sparsemap as sm

CAP = 1e4


@pytest.fixture(scope="module")
def layer_hw():
    return sm.zoo("resnet50").gemm_layers[4], sm.arch("gamma-edge")


def normalised(layer, hw, genome, space, bound, objective="latency"):
    c = sm.evaluate(layer, hw, space.decode(genome), enforce_buffers=True)
    if c.status != "ok":
        return CAP, c
    j = {"latency": c.runtime_cycles, "energy": c.energy_nj}[objective]
    return min(CAP, j / bound), c


def test_map_env_bound_spaces_and_reset(layer_hw):
    layer, hw = layer_hw
    env = sm.MapEnv(layer, hw, episode_steps=5)
    D = env.space.dims
    assert env.bound == -(-layer.macs // hw.num_pes)  # ceil(MACs / PEs)
    assert env.action_space.shape == (D,)
    assert env.observation_space.shape == (7 + D + 2,)
    assert np.all(env.observation_space.low == 0) and np.all(env.observation_space.high == 1)
    o1, _ = env.reset(seed=7)
    g1 = env.genome
    o2, _ = env.reset(seed=7)
    assert np.array_equal(o1, o2) and np.array_equal(g1, env.genome)
    assert env.observation_space.contains(o1)
    assert np.array_equal(o1[7:7 + D], g1) and o1[7 + D] == 0
    assert o1[6] == pytest.approx(np.log2(hw.num_pes) / 32)


@pytest.mark.parametrize("objective,reward", [("latency", "improvement"),
                                              ("energy", "negative")])
def test_map_env_rewards_follow_the_cost_model(layer_hw, objective, reward):
    layer, hw = layer_hw
    env = sm.MapEnv(layer, hw, objective=objective, reward=reward, episode_steps=40)
    space = env.space
    _, info = env.reset(seed=3)
    prev, _ = normalised(layer, hw, env.genome, space, env.bound, objective)
    assert info["cost"] == prev
    env.action_space.seed(11)
    feasible = 0
    for t in range(40):
        a = env.action_space.sample()
        obs, r, terminated, truncated, info = env.step(a)
        cost, c = normalised(layer, hw, a, space, env.bound, objective)
        assert info["cost"] == cost and info["runtime_cycles"] == c.runtime_cycles
        assert info["status"] == c.status
        assert r == (prev - cost if reward == "improvement" else -cost)
        assert np.array_equal(obs[7:-2], np.minimum(a, np.nextafter(1, 0)))
        assert obs[-2] == (t + 1) / 40
        assert not terminated and truncated == (t == 39)
        feasible += c.status == "ok"
        prev = cost
    assert 0 < feasible < 40
    with pytest.raises(ValueError, match="episode is over"):
        env.step(env.action_space.sample())


def test_map_env_gene_steps(layer_hw):
    layer, hw = layer_hw
    env = sm.MapEnv(layer, hw, action="step", step_size=0.25, episode_steps=3)
    D = env.space.dims
    assert env.action_space.n == 2 * D
    env.reset(seed=1)
    g = env.genome.copy()
    env.step(2 * 4 + 1)  # gene 4 up
    g[4] = min(g[4] + 0.25, np.nextafter(1, 0))
    assert np.array_equal(env.genome, g)
    env.step(2 * 4)  # gene 4 down
    g[4] = max(g[4] - 0.25, 0)
    assert np.array_equal(env.genome, g)
    with pytest.raises(ValueError, match="expected an action in"):
        env.step(2 * D)


def test_map_env_random_policy_10000_steps_under_2s(layer_hw):
    layer, hw = layer_hw
    env = sm.MapEnv(layer, hw, episode_steps=100)
    env.action_space.seed(0)
    start = time.perf_counter()
    env.reset(seed=0)
    episodes = 0
    for _ in range(10_000):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
            episodes += 1
    elapsed = time.perf_counter() - start
    assert episodes == 100
    assert elapsed < 2.0, f"10,000 steps took {elapsed:.2f} s"


def small_model():
    return sm.Model("tiny", [
        sm.Layer("CONV", "a", K=16, C=8, Y=10, X=10, R=3, S=3),
        sm.Layer("CONV", "b", K=16, C=16, Y=8, X=8, R=3, S=3),
        sm.Layer("CONV", "a2", K=16, C=8, Y=10, X=10, R=3, S=3),
        sm.Layer("GEMM", "g", M=32, N=16, K=64),
    ])


def test_codesign_env_episode_matches_the_cost_model():
    hw = sm.arch("gamma-edge")
    env = sm.CodesignEnv(small_model(), hw, area_budget_mm2=50.0, pe_limit=64, pe_step=8,
                         buffers="need")
    assert env.unique_layers == 3 and env.layer_index == [0, 1, 0, 2]
    assert env.multiplicity == [2, 1, 1]
    obs, _ = env.reset(seed=5)
    assert obs.shape == env.observation_space.shape == (11,)
    env.action_space.seed(2)
    total = 0.0
    for t in range(env.unique_layers + 1):
        obs, r, terminated, truncated, info = env.step(env.action_space.sample())
        total += r
        assert terminated == (t == env.unique_layers) and not truncated
        assert obs[0] == (t + 1) / (env.unique_layers + 1)
    assert info["feasible"]
    # The design by hand: PEs from gene 0, each distinct layer's genes decoded on that many PEs.
    g = env.genome
    pes = info["pes"]
    assert pes == 8 * (1 + int(g[0] * 8))
    a = hw.copy()
    a.num_pes, a.l1_bytes, a.l2_bytes = pes, 64 * 1024, 64 * 1024 * 1024
    runtime, offset = 0, 3
    per_layer = []
    for u, l in enumerate(env.layers):
        space = sm.MapSpace(l, a)
        c = sm.evaluate(l, a, space.decode(g[offset:offset + space.dims]))
        per_layer.append(c.runtime_cycles)
        offset += space.dims
    runtime = sum(per_layer[u] for u in env.layer_index)
    assert info["runtime_cycles"] == runtime == info["fitness"]
    assert env.fitness(g) == runtime
    assert total == r == -min(1e4, runtime / env.bound)
    with pytest.raises(ValueError, match="episode is over"):
        env.step(env.action_space.sample())


def test_codesign_env_infeasible_design_gets_the_cap():
    env = sm.CodesignEnv(small_model(), sm.arch("gamma-edge"), area_budget_mm2=0.003,
                         pe_limit=64, buffers="need")
    env.reset(seed=1)
    for _ in range(env.unique_layers + 1):
        _, r, done, _, info = env.step(np.full(env.action_space.shape, 0.5))
    assert done and not info["feasible"] and r == -1e4


def test_env_bad_arguments(layer_hw):
    layer, hw = layer_hw
    with pytest.raises(ValueError, match="call reset"):
        sm.MapEnv(layer, hw).step(np.zeros(29))
    with pytest.raises(ValueError, match="action mode"):
        sm.MapEnv(layer, hw, action="fly")
    with pytest.raises(ValueError, match="objective"):
        sm.MapEnv(layer, hw, objective="speed")
    env = sm.MapEnv(layer, hw)
    env.reset()
    with pytest.raises(ValueError, match="genome of 29 genes"):
        env.step(np.zeros(3))
    with pytest.raises(ValueError, match="nan"):
        env.step(np.full(29, np.nan))
    with pytest.raises(ValueError, match="platform"):
        sm.CodesignEnv(small_model(), hw, platform="moon")

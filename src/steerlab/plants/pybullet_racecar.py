"""``PyBulletRacecarPlant``: PyBullet's MIT-racecar URDF as a steerlab plant.

The body is ``pybullet_data/racecar/racecar.urdf`` on ``plane.urdf``, simulated in a private
``DIRECT`` client (no window, no shared global state: several plants live side by side).

Actuation
---------
- Every joint's built-in velocity motor is disabled at load (``VELOCITY_CONTROL`` with force 0),
  so the wheels roll freely unless driven.
- Steering: ``POSITION_CONTROL`` of both steering hinges (joints 4 and 6) to the same target
  ``steer * max_steer`` [rad] with at most ``steer_force`` [N m] (no Ackermann linkage: the
  URDF has none; PyBullet's own ``pybullet_envs`` racecar drives them the same way). The hinge
  servo sets its own slew; the reached angle is reported as ``VehicleState.steer``.
- Throttle: ``TORQUE_CONTROL`` of both rear wheels (joints 2 and 3), ``throttle * max_torque``
  [N m] each, re-sent before every ``stepSimulation`` (PyBullet applies an external joint torque
  for one physics step only). A negative throttle brakes while rolling forward and then drives
  in reverse: a torque does exactly that, so no separate brake is modelled. The front wheels
  roll freely. Coasting, the car slows by about 0.5 m/s^2 at 1 m/s (measured; it comes from
  the wheel/ground contact, not from link damping: zero damping changes nothing).
- Control rate decoupled from the physics rate: a caller's ``dt`` is run as ``k = ceil(dt *
  physics_rate)`` physics steps of ``dt / k`` each (so the physics step never exceeds
  ``1 / physics_rate``, 240 Hz by default: PyBullet's default step, and ``dt`` need not be a
  multiple of it). The command is held over the ``k`` steps.

Conventions bridged (all checked by the tests against the simulator's own readings)
-----------------------------------------------------------------------------------
- Axes: PyBullet's world is z-up, x/y the ground plane, metres: used as is (``x``, ``y``).
- Reference point: the URDF's ``base_link`` frame, whose origin is the midpoint of the rear
  axle projected near the ground (the base's inertial frame coincides with it, so
  ``getBasePositionAndOrientation`` / ``getBaseVelocity`` read that point). steerlab's
  ``VehicleState`` documents the centre of mass; here ``(x, y)`` is the rear-axle centre, which
  is pure pursuit's (and ``StanleyFollower``'s, ``vehicle_params`` has no ``cg_to_front``)
  reference. The chassis' centre of mass lies 0.148 m ahead of it.
- Yaw: the body's forward axis is its local +x (front hinges at +0.325 m). ``yaw =
  atan2(R[1, 0], R[0, 0])`` of the base's rotation matrix (the forward axis projected on the
  ground), counter-clockwise from world +x, wrapped to ``[-pi, pi)``. Equal to the z Euler angle
  of ``getEulerFromQuaternion`` while the car is level.
- Velocity: ``getBaseVelocity``'s world linear velocity projected on the ground heading: ``v``
  along ``(cos yaw, sin yaw)``, ``v_lat`` along ``(-sin yaw, cos yaw)`` (left positive);
  ``yaw_rate`` the world angular velocity's z (counter-clockwise positive). Vertical motion is
  not reported.
- Steer sign: a positive hinge angle turns the car left (measured: positive yaw rate), the
  same sign as ``DriveCommand.steer``; ``state.steer`` is the mean of the two hinge angles.
- Wheel spin: positive rear-wheel torque drives the car forward (+x body).

State handling
--------------
The simulator holds the truth. ``step(state, command, dt)`` compares ``state`` with the record it
returned last (``reset``, ``observe`` and ``step`` all set it): equal, it steps on; different (a
caller that teleported the vehicle, or ``simulate`` started from its own initial state), it
*resyncs* (``on_mismatch="resync"``, the default): the body is placed at ``state`` exactly as
``reset(state)`` does, then stepped. The wheels' spin is set to rolling (``v / wheel_radius``)
since ``VehicleState`` does not carry it. A resync is not bit-identical to the same state reached
by driving: PyBullet keeps its contact cache (warm start) across the teleport (measured: 1e-4 m and
7e-3 m/s after one frame at 1 m/s). ``on_mismatch="raise"`` raises ``ValueError`` instead.

Failures: a non-finite reading (the solver exploded) or a body tilted more than ``max_tilt``
from upright (rolled over) raises ``PlantDiverged`` with the reason, so a benchmark records the
trial as failed.

PyBullet has no random draw in this set-up: two fresh plants given the same ``reset`` state and
the same commands give the same bits (tested), so the plant takes no seed.
"""

from __future__ import annotations

import contextlib
import math
from typing import NamedTuple

try:
    import pybullet
    import pybullet_data
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "PyBulletRacecarPlant needs pybullet: pip install 'steerlab[plants]'"
    ) from error

from steerlab._checks import check_positive, check_timestep
from steerlab.plants.errors import PlantDiverged
from steerlab.vehicles.state import (
    DriveCommand,
    VehicleState,
    check_drive_command,
    check_vehicle_state,
)

__all__ = ["PlantDiverged", "PyBulletRacecarPlant", "RacecarParams"]

_TWO_PI = 2.0 * math.pi

# joint indices of racecar.urdf (checked by name at load)
_REAR_WHEELS = (2, 3)
_STEERING_HINGES = (4, 6)
_JOINT_NAMES = {
    2: b"left_rear_wheel_joint",
    3: b"right_rear_wheel_joint",
    4: b"left_steering_hinge_joint",
    5: b"left_front_wheel_joint",
    6: b"right_steering_hinge_joint",
    7: b"right_front_wheel_joint",
}
_HINGE_LIMIT = 1.0  # [rad] the URDF's steering hinge limit (<limit lower="-1.0" upper="1.0">)


class RacecarParams(NamedTuple):
    """Settings of ``PyBulletRacecarPlant``; also its ``vehicle_params`` for the followers.

    ``kind``, ``wheelbase`` and ``max_steer`` are what ``PathFollower`` reads.
    """

    kind: int = 0  # wheeled
    wheelbase: float = 0.325  # [m] racecar.urdf: front hinges at x = 0.325, rear wheels at x = 0
    max_steer: float = 0.5  # [rad] hinge angle at steer = 1; pybullet_envs' racecar uses 0.5
    #   (steeringMultiplier); the URDF's limit is 1.0
    max_torque: float = 0.3  # [N m] per rear wheel at throttle = 1: about the traction limit
    #   (wheel/ground friction 0.5 x ~29 N on the rear axle x 0.05 m radius / 2 wheels ~ 0.36 N m):
    #   more only spins the wheels; ~2 m/s^2 on the 5.9 kg car
    steer_force: float = 10.0  # [N m] the hinge servo's maximum torque: the URDF's effort limit
    wheel_radius: float = 0.05  # [m] racecar.urdf wheel cylinders (reported, not used to drive)
    physics_rate: float = 240.0  # [Hz] minimum physics rate: PyBullet's default step 1/240 s
    max_tilt: float = 1.0  # [rad] body tilt from upright beyond which the car counts as rolled
    #   over (PlantDiverged); ~57 degrees, a car that far over does not come back on its own


def _check_params(params: RacecarParams) -> RacecarParams:
    if not isinstance(params, RacecarParams):
        raise ValueError(f"params must be a RacecarParams, got {params!r}")
    if params.kind != 0:
        raise ValueError(f"params.kind must be 0 (the racecar is wheeled), got {params.kind!r}")
    values = {}
    for field in RacecarParams._fields[1:]:
        values[field] = check_positive(f"params.{field}", getattr(params, field), per_agent=False)
    if values["max_steer"] > _HINGE_LIMIT:
        raise ValueError(
            f"params.max_steer must be <= {_HINGE_LIMIT} (the URDF's hinge limit), got "
            f"{params.max_steer!r}"
        )
    if values["max_tilt"] > math.pi:
        raise ValueError(f"params.max_tilt must be <= pi, got {params.max_tilt!r}")
    return RacecarParams(0, **values)


class PyBulletRacecarPlant:
    """PyBullet's racecar driven by ``DriveCommand`` (see the module docstring for every
    convention).

    Parameters
    ----------
    params : RacecarParams
        Actuation, physics rate and failure settings; ``vehicle_params`` is this record.
    start : VehicleState
        Where ``reset()`` without an argument puts the car (default: origin, facing +x, at rest).
    on_mismatch : "resync" or "raise"
        What ``step`` does with a ``state`` that is not the one it returned last.

    Attributes
    ----------
    client : int
        The PyBullet physics client id (``DIRECT``), for callers that want the raw simulator.
    body : int
        The racecar's body id in that client.
    """

    def __init__(
        self,
        params: RacecarParams = RacecarParams(),  # noqa: B008 (immutable record)
        start: VehicleState = VehicleState(),  # noqa: B008 (immutable record)
        on_mismatch: str = "resync",
    ):
        self.params = _check_params(params)
        if not isinstance(on_mismatch, str) or on_mismatch not in ("resync", "raise"):
            raise ValueError(f"on_mismatch must be 'resync' or 'raise', got {on_mismatch!r}")
        self.on_mismatch = on_mismatch
        self.start = check_vehicle_state(start, "start")
        self.client = -1
        client = pybullet.connect(pybullet.DIRECT)
        if client < 0:  # pragma: no cover - DIRECT always connects
            raise RuntimeError("pybullet.connect(DIRECT) failed")
        self.client = client
        self._substep = 1.0 / self.params.physics_rate
        pybullet.setAdditionalSearchPath(pybullet_data.getDataPath(), physicsClientId=client)
        pybullet.setGravity(0.0, 0.0, -9.81, physicsClientId=client)
        pybullet.setTimeStep(self._substep, physicsClientId=client)
        pybullet.setPhysicsEngineParameter(deterministicOverlappingPairs=1, physicsClientId=client)
        self.ground = pybullet.loadURDF("plane.urdf", physicsClientId=client)
        self.body = pybullet.loadURDF(
            "racecar/racecar.urdf", [0.0, 0.0, 0.05], physicsClientId=client
        )
        for joint, name in _JOINT_NAMES.items():
            found = pybullet.getJointInfo(self.body, joint, physicsClientId=client)[1]
            if found != name:  # pragma: no cover - guards against another pybullet_data
                raise RuntimeError(f"racecar.urdf joint {joint} is {found!r}, expected {name!r}")
        for joint in range(pybullet.getNumJoints(self.body, physicsClientId=client)):
            pybullet.setJointMotorControl2(
                self.body,
                joint,
                pybullet.VELOCITY_CONTROL,
                targetVelocity=0.0,
                force=0.0,
                physicsClientId=client,
            )
        # settle once on the ground at rest: the height and attitude at which reset() places it
        self._set_steer_target(0.0)
        for _ in range(int(self.params.physics_rate)):
            pybullet.stepSimulation(physicsClientId=client)
        position, orientation = pybullet.getBasePositionAndOrientation(
            self.body, physicsClientId=client
        )
        self._rest_height = position[2]
        self._rest_pitch = pybullet.getEulerFromQuaternion(orientation)[1]
        self._settled = pybullet.saveState(physicsClientId=client)
        self._torques = [0.0, 0.0]
        self._last: VehicleState | None = None
        self.reset()

    # -- public API ---------------------------------------------------------------------------

    @property
    def vehicle_params(self) -> RacecarParams:
        """The record the followers read (``kind``, ``wheelbase``, ``max_steer``)."""
        return self.params

    def reset(self, state: VehicleState | None = None) -> VehicleState:
        """Place the car at ``state`` (default ``start``) on the ground; return what the
        simulator then reports (``observe()``).

        Position and yaw as given, at the settled ride height, level; body velocity ``v``,
        ``v_lat`` and ``yaw_rate`` as given; both hinges at ``state.steer`` (clamped to the
        hinge limit) with the servo aiming there; every wheel spinning at ``v / wheel_radius``
        (rolling). The simulator's hidden state (its contact caches) is first restored to the
        one saved when the car settled at construction (``pybullet.saveState`` /
        ``restoreState``), and its overlapping pairs are kept in a deterministic order
        (``deterministicOverlappingPairs``): what follows a reset does not depend on what the
        plant did before it (tested; without both, coasting 1 s from 1 m/s after a reset ended
        up to 1.5 cm apart depending on the earlier trials).
        """
        state = self.start if state is None else check_vehicle_state(state)
        self._place(state)
        return self.observe()

    def observe(self) -> VehicleState:
        """The simulator's own state mapped to a ``VehicleState`` (conventions: module docstring).

        Raises ``PlantDiverged`` on a non-finite reading or a rolled-over body.
        """
        client, body = self.client, self.body
        position, (qx, qy, qz, qw) = pybullet.getBasePositionAndOrientation(
            body, physicsClientId=client
        )
        velocity, angular = pybullet.getBaseVelocity(body, physicsClientId=client)
        left, right = pybullet.getJointStates(body, _STEERING_HINGES, physicsClientId=client)
        # rotation matrix columns: forward axis R[:, 0], up axis R[:, 2]
        forward_x = 1.0 - 2.0 * (qy * qy + qz * qz)
        forward_y = 2.0 * (qx * qy + qz * qw)
        up_z = 1.0 - 2.0 * (qx * qx + qy * qy)
        yaw = math.atan2(forward_y, forward_x)
        if yaw >= math.pi:  # atan2 gives (-pi, pi]; steerlab's range is [-pi, pi)
            yaw -= _TWO_PI
        cos_yaw, sin_yaw = math.cos(yaw), math.sin(yaw)
        vx, vy = velocity[0], velocity[1]
        state = VehicleState(
            position[0],
            position[1],
            yaw,
            vx * cos_yaw + vy * sin_yaw,
            vy * cos_yaw - vx * sin_yaw,
            angular[2],
            0.5 * (left[0] + right[0]),
        )
        if not all(map(math.isfinite, state)) or not math.isfinite(position[2]):
            raise PlantDiverged(f"pybullet racecar state is not finite: {state!r}")
        if up_z < math.cos(self.params.max_tilt):
            raise PlantDiverged(
                f"pybullet racecar rolled over: tilt {math.acos(max(-1.0, up_z)):.3f} rad > "
                f"max_tilt {self.params.max_tilt} at x={state.x:.3f}, y={state.y:.3f}"
            )
        self._last = state
        return state

    def step(self, state: VehicleState, command: DriveCommand, dt: float) -> VehicleState:
        """Hold ``command`` for ``dt`` seconds of simulation; return the new state.

        ``state`` must be the record returned last (else resync or ``ValueError``, per
        ``on_mismatch``). ``dt > 0`` runs ``ceil(dt * physics_rate)`` physics steps.
        """
        steer, throttle = check_drive_command(command)
        dt = check_timestep(dt)
        if state != self._last:
            state = check_vehicle_state(state)
            if self.on_mismatch == "raise":
                raise ValueError(
                    f"state must be the plant's last returned state {self._last!r}, got {state!r}"
                    " (on_mismatch='raise')"
                )
            self._place(state)
        substeps = math.ceil(dt * self.params.physics_rate - 1e-9)
        substep = dt / substeps
        client, body = self.client, self.body
        if substep != self._substep:
            pybullet.setTimeStep(substep, physicsClientId=client)
            self._substep = substep
        self._set_steer_target(steer * self.params.max_steer)
        torque = throttle * self.params.max_torque
        torques = self._torques
        torques[0] = torques[1] = torque
        set_motors, torque_control = pybullet.setJointMotorControlArray, pybullet.TORQUE_CONTROL
        step_simulation = pybullet.stepSimulation
        for _ in range(substeps):
            set_motors(body, _REAR_WHEELS, torque_control, forces=torques, physicsClientId=client)
            step_simulation(physicsClientId=client)
        return self.observe()

    def close(self) -> None:
        """Disconnect the PyBullet client (idempotent)."""
        if getattr(self, "client", -1) >= 0:
            # the server may already be gone at interpreter exit
            with contextlib.suppress(pybullet.error):
                pybullet.disconnect(physicsClientId=self.client)
            self.client = -1

    def __enter__(self) -> PyBulletRacecarPlant:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self) -> None:
        # at interpreter exit the module globals may already be gone: nothing left to free then
        with contextlib.suppress(Exception):
            self.close()

    def __repr__(self) -> str:
        return (
            f"PyBulletRacecarPlant(max_steer={self.params.max_steer}, max_torque="
            f"{self.params.max_torque}, physics_rate={self.params.physics_rate})"
        )

    # -- internals ----------------------------------------------------------------------------

    def _set_steer_target(self, angle: float) -> None:
        pybullet.setJointMotorControlArray(
            self.body,
            _STEERING_HINGES,
            pybullet.POSITION_CONTROL,
            targetPositions=[angle, angle],
            forces=[self.params.steer_force, self.params.steer_force],
            physicsClientId=self.client,
        )

    def _place(self, state: VehicleState) -> None:
        client, body = self.client, self.body
        pybullet.restoreState(self._settled, physicsClientId=client)
        orientation = pybullet.getQuaternionFromEuler(
            [0.0, self._rest_pitch, state.yaw], physicsClientId=client
        )
        pybullet.resetBasePositionAndOrientation(
            body, [state.x, state.y, self._rest_height], orientation, physicsClientId=client
        )
        vx, vy = state.velocity
        pybullet.resetBaseVelocity(
            body, [vx, vy, 0.0], [0.0, 0.0, state.yaw_rate], physicsClientId=client
        )
        steer = min(max(state.steer, -_HINGE_LIMIT), _HINGE_LIMIT)
        spin = state.v / self.params.wheel_radius
        for joint in _STEERING_HINGES:
            pybullet.resetJointState(body, joint, steer, 0.0, physicsClientId=client)
        for joint in (2, 3, 5, 7):
            pybullet.resetJointState(body, joint, 0.0, spin, physicsClientId=client)
        self._set_steer_target(steer)

"""Six vehicle presets after seed 001's test vehicles (Battlefield 2042): Storm, Bolte, Panhard
Crab, Zaha, Armata, Hovercraft.

The game's vehicle numbers are not public. Each preset takes a real vehicle of the class the
paper's vehicle belongs to and its published figures (mass, power, top speed, dimensions, turning
circle, gradient), with the source named next to each value (a tag in brackets, listed under
*Sources* below); a value marked *assumed* is a plausible engineering figure chosen here (tyre
and track coefficients from the usual textbook ranges: Gillespie, *Fundamentals of Vehicle
Dynamics*; Wong, *Theory of Ground Vehicles*).
Shared conventions:

- ``yaw_inertia``: a uniform box of the hull's length and width, ``m (l^2 + w^2) / 12``;
- ``engine_power`` is the power reaching the ground (driveline losses taken off the engine's
  rating, assumed), ``engine_force`` the first-gear tractive force (a fraction of the weight,
  assumed), so ``F = min(engine_force, engine_power / |v|)``;
- wheeled cornering stiffness per axle = coefficient x axle load (``C / F_z`` about 6 to 8 /rad
  for off-road and military tyres, assumed), the front's 10 % lower (a mild understeer, as
  production vehicles are set up);
- ``max_steer`` of a wheeled preset is the equivalent single-track angle that gives the
  published turning circle (kerb to kerb, outer front wheel) where there is one:
  ``R_kerb^2 = (L / tan(max_steer) + track / 2)^2 + L^2``;
- ``drag`` is ``0.5 rho Cd A`` with ``rho = 1.2 kg/m^3`` and an assumed ``Cd`` and frontal area.

Sources. A figure followed by a tag was checked against the stored copy of that public page (the
figure in brackets after each tag is what the page states); a figure still credited only as
"(Polaris)", "(Jeep spec)", "reported" and the like was not found on any stored page and stands
as first written:

- [ATV] atv.com, "EPA Certifies 107-Horsepower Polaris RZR XP 1000" (80 kW, 107 hp);
- [UTV] utvauto.com/polaris-rzr-1000-top-speed (RZR XP 1000: "64-inch-wide stance");
- [JWB] jeeps.truckstrend.com, "Jeep Wrangler 2 Door Wheelbase: The Epitome of Off-Road
  Agility" (JL 2-door: 96.8 in, 2459 mm);
- [JEU] auto.cz, nova-generace-jeepu-wrangler-jl-miri-evropy (2018: short wheelbase 2459 mm,
  Pentastar 3.6 l / 209 kW);
- [JHP] carsinsane.com, 2021-jeep-wrangler-review (3.6-liter V-6, 285 hp);
- [JLEN] sites.google.com/view/a8reviews/jeep/2020-wrangler (2-door JL 167 in long);
- [JWID] search.sks.com/jeep-wrangler-width (Wrangler body width 73.8 in);
- [OPX] opex360.com, 2012-04-20, "Panhard a presente son CRAB au chef d'etat-major de l'armee
  de Terre et a la DGA" (8 to 10 t, up to 110 km/h, 4.50 m long, 2.50 m wide);
- [AW] armoredwarfare.com/de/news/general/entwicklung-panhard-crab (8 to 10 t, about 110 km/h,
  base engine "Steyr M16 Diesel mit 320", the unit cut off in the stored copy);
- [MW] military-wiki.com, "BTR-80 - a further development of the APC BTR-60 and BTR-70"
  (13.6 t, 2.9 m wide, 90 km/h, 60 % gradient; it rounds the length to 7.7 m);
- [LEG] legion.wplus.net/guide/army/ta/btr80.shtml (BTR-80: 7.65 m x 2.90 m, 13,600 kg);
- [DB] moralepatcharmory.com defence blog, "Two persons killed in collision with Russian
  armoured personnel carrier" (BTR-82A: KAMAZ 740.14-300 turbo diesel, 300 hp);
- [DAB] da-boss.com, "T-14 Armata", 2015-04-05 (48 tonnes, 80-90 kph top speed);
- [SAR] sarabic.ae (Sputnik Arabic), 2021-05-01, ten reasons for the Armata (T-14: 55 t);
- [SPK] sputniknews.com, 2017-02-07, Armata serial production (basic version 1,500 hp);
- [GRF] Wikipedia, "Griffon Hoverwork 2000TD" (revision 1230867807, stored via
  wikipedia.bradmurray.com; the same on wikimili.com): length 11.7 m, beam 5.9 m, one Deutz
  diesel of 350 hp for lift and propulsion, 6.8 t (military), 35 kn.

The seed: "The first three vehicles were deemed easily maneuverable, while the latter three
presented greater challenges due to slower turning rate, larger turning radius, poor traction".
The measured table (``steerlab.experiments.fidelity.vehicle_classes``, ``docs/fidelity.md``) checks
that these
parameters reproduce it.
"""

from __future__ import annotations

import math
from types import MappingProxyType

from steerlab.vehicles.params import GRAVITY, HOVER, TRACKED, WHEELED, VehicleParams

__all__ = ["ARMATA", "BOLTE", "HOVERCRAFT", "PANHARD_CRAB", "PRESETS", "STORM", "ZAHA"]

_RHO = 1.2  # [kg/m^3] air density


def _steer_for_turning_circle(kerb_radius: float, wheelbase: float, track: float) -> float:
    """Equivalent single-track lock [rad] from a kerb-to-kerb turning radius (outer front wheel)."""
    rear_axle_radius = math.sqrt(kerb_radius**2 - wheelbase**2) - 0.5 * track
    return math.atan(wheelbase / rear_axle_radius)


def _box_inertia(mass: float, length: float, width: float) -> float:
    return mass * (length**2 + width**2) / 12.0


def _axle_stiffness(mass: float, wheelbase: float, cg_to_front: float, coefficient: float):
    """(front, rear) cornering stiffness [N/rad]: coefficient x static axle load, front -10 %."""
    load = mass * GRAVITY
    front = 0.9 * coefficient * load * (wheelbase - cg_to_front) / wheelbase
    rear = coefficient * load * cg_to_front / wheelbase
    return front, rear


# --- Storm: light agile buggy, after the Polaris RZR XP 1000 --------------------------------------
_STORM_MASS = 800.0  # [kg] RZR XP 1000: dry weight about 680 kg (Polaris) + driver, fuel (assumed)
_STORM_WHEELBASE = 2.29  # [m] 90 in (Polaris spec)
_STORM_CG_TO_FRONT = 0.55 * _STORM_WHEELBASE  # rear engine: 55 % of the weight behind (assumed)
_STORM_CORNERING = _axle_stiffness(_STORM_MASS, _STORM_WHEELBASE, _STORM_CG_TO_FRONT, 8.0)
STORM = VehicleParams(
    kind=WHEELED,
    mass=_STORM_MASS,
    yaw_inertia=_box_inertia(_STORM_MASS, 3.0, 1.63),  # length 118 in (Polaris), width 64 in [UTV]
    wheelbase=_STORM_WHEELBASE,
    cg_to_front=_STORM_CG_TO_FRONT,
    half_length=1.5,  # [m] 3.0 m long (Polaris: 118 in)
    half_width=0.815,  # [m] 1.63 m wide (64 in [UTV])
    max_steer=math.radians(30.0),  # assumed: kinematic radius 4.0 m, a tight buggy
    steer_rate=1.2,  # [rad/s] lock in 0.45 s (assumed: quick rack, game-like)
    cornering_front=_STORM_CORNERING[0],  # 8 /rad x axle load (assumed, off-road tyres)
    cornering_rear=_STORM_CORNERING[1],
    mu=0.9,  # off-road tyres on firm dirt (assumed; Wong: 0.8 to 1.0 on dry firm ground)
    engine_force=0.7 * _STORM_MASS * GRAVITY,  # low-range CVT launch (assumed)
    engine_power=0.85 * 80_000.0,  # 107 hp, 80 kW [ATV], 85 % through the CVT (assumed)
    brake_force=0.8 * _STORM_MASS * GRAVITY,  # (assumed; bounded by mu N in the model anyway)
    rolling_resistance=0.025,  # off-road tyres on firm dirt (assumed; Wong: 0.02 to 0.05)
    drag=0.5 * _RHO * 0.9 * 2.2,  # open cab: Cd 0.9, frontal area 2.2 m^2 (assumed)
    max_speed=29.0,  # [m/s] about 65 mph, reported top speed (assumed round figure)
    max_reverse_speed=8.0,  # (assumed)
)

# --- Bolte: light 4x4, after a Jeep Wrangler (JL, two-door) ---------------------------------------
_BOLTE_MASS = 1950.0  # [kg] curb weight about 1,850 kg (Jeep, 2-door JL) + driver (assumed)
_BOLTE_WHEELBASE = 2.46  # [m] 96.8 in, 2459 mm (2-door JL) [JWB] [JEU]
_BOLTE_CG_TO_FRONT = 0.48 * _BOLTE_WHEELBASE  # front engine: 52 % on the front (assumed)
_BOLTE_CORNERING = _axle_stiffness(_BOLTE_MASS, _BOLTE_WHEELBASE, _BOLTE_CG_TO_FRONT, 8.0)
BOLTE = VehicleParams(
    kind=WHEELED,
    mass=_BOLTE_MASS,
    yaw_inertia=_box_inertia(_BOLTE_MASS, 4.24, 1.87),  # 167 in [JLEN] x 73.8 in [JWID]
    wheelbase=_BOLTE_WHEELBASE,
    cg_to_front=_BOLTE_CG_TO_FRONT,
    half_length=2.12,  # [m] 4.24 m long (167 in [JLEN])
    half_width=0.935,  # [m] 1.87 m wide (73.8 in [JWID])
    # turning circle about 10.6 m kerb to kerb (Jeep spec, about 34.9 ft), track 1.6 m: 32 deg
    max_steer=_steer_for_turning_circle(5.3, _BOLTE_WHEELBASE, 1.6),
    steer_rate=1.0,  # [rad/s] (assumed)
    cornering_front=_BOLTE_CORNERING[0],  # 8 /rad x axle load (assumed, all-terrain tyres)
    cornering_rear=_BOLTE_CORNERING[1],
    mu=0.85,  # all-terrain tyres on firm ground (assumed)
    engine_force=0.6 * _BOLTE_MASS * GRAVITY,  # (assumed)
    engine_power=0.85 * 209_000.0,  # V6 209 kW [JEU] (285 hp [JHP]), 85 % at the wheels (assumed)
    brake_force=0.8 * _BOLTE_MASS * GRAVITY,  # (assumed)
    rolling_resistance=0.02,  # (assumed; Wong: 0.015 to 0.03 on firm ground)
    drag=0.5 * _RHO * 0.5 * 3.0,  # boxy: Cd 0.5, frontal area 3.0 m^2 (assumed)
    max_speed=40.0,  # [m/s] governed, about 90 mph (assumed)
    max_reverse_speed=8.0,  # (assumed)
)

# --- Panhard Crab: agile wheeled armoured car, after the Panhard CRAB (4x4, four-wheel steering) --
_CRAB_MASS = 8000.0  # [kg] "8 to 10 t" (Panhard, April 2012) [OPX] [AW]
_CRAB_WHEELBASE = 2.9  # [m] (assumed: 4.5 m long vehicle)
_CRAB_CG_TO_FRONT = 0.5 * _CRAB_WHEELBASE  # (assumed)
_CRAB_CORNERING = _axle_stiffness(_CRAB_MASS, _CRAB_WHEELBASE, _CRAB_CG_TO_FRONT, 7.0)
PANHARD_CRAB = VehicleParams(
    kind=WHEELED,
    mass=_CRAB_MASS,
    yaw_inertia=_box_inertia(_CRAB_MASS, 4.5, 2.5),
    wheelbase=_CRAB_WHEELBASE,
    cg_to_front=_CRAB_CG_TO_FRONT,
    half_length=2.25,  # [m] 4.5 m long (Panhard) [OPX]
    half_width=1.25,  # [m] 2.5 m wide (Panhard) [OPX]
    # four-wheel steering folded into an equivalent front-steered single track: 35 deg gives
    # a kinematic radius of 4.1 m, about half what front steering alone would (assumed)
    max_steer=math.radians(35.0),
    steer_rate=0.8,  # [rad/s] (assumed)
    cornering_front=_CRAB_CORNERING[0],  # 7 /rad x axle load (assumed, military tyres)
    cornering_rear=_CRAB_CORNERING[1],
    mu=0.8,  # (assumed)
    engine_force=0.6 * _CRAB_MASS * GRAVITY,  # (assumed)
    engine_power=0.8 * 235_000.0,  # Steyr M16, 320 hp [AW] (235 kW), 80 % at the wheels (assumed)
    brake_force=0.75 * _CRAB_MASS * GRAVITY,  # (assumed)
    rolling_resistance=0.02,  # (assumed)
    drag=0.5 * _RHO * 0.9 * 4.5,  # Cd 0.9, frontal area 2.5 m x 1.8 m (assumed)
    max_speed=30.5,  # [m/s] 110 km/h (Panhard) [OPX] [AW]
    max_reverse_speed=8.0,  # (assumed)
)

# --- Zaha: heavy wheeled APC, large turning radius, after the BTR-80 / BTR-82A (8x8) -------------
_ZAHA_MASS = 15_400.0  # [kg] BTR-82A combat weight 15.4 t (BTR-80: 13.6 t [MW] [LEG])
_ZAHA_WHEELBASE = 3.6  # [m] equivalent single track: first axle to the middle of the rear pair
_ZAHA_CG_TO_FRONT = 0.5 * _ZAHA_WHEELBASE  # (assumed)
_ZAHA_CORNERING = _axle_stiffness(_ZAHA_MASS, _ZAHA_WHEELBASE, _ZAHA_CG_TO_FRONT, 6.0)
ZAHA = VehicleParams(
    kind=WHEELED,
    mass=_ZAHA_MASS,
    yaw_inertia=_box_inertia(_ZAHA_MASS, 7.65, 2.9),  # BTR-80: 7.65 m x 2.9 m [LEG]
    wheelbase=_ZAHA_WHEELBASE,
    cg_to_front=_ZAHA_CG_TO_FRONT,
    half_length=3.83,  # [m] 7.65 m long (BTR-80) [LEG]
    half_width=1.45,  # [m] 2.9 m wide (BTR-80) [LEG] [MW]
    # turning radius 13.2 m (BTR-80, manufacturer figure as reported), track 2.4 m: 17 deg
    max_steer=_steer_for_turning_circle(13.2, _ZAHA_WHEELBASE, 2.4),
    steer_rate=0.4,  # [rad/s] heavy power steering (assumed)
    cornering_front=_ZAHA_CORNERING[0],  # 6 /rad x axle load (assumed, large military tyres)
    cornering_rear=_ZAHA_CORNERING[1],
    mu=0.75,  # (assumed)
    engine_force=0.55 * _ZAHA_MASS * GRAVITY,  # climbs a 60 % gradient (BTR-80) [MW]
    engine_power=0.8 * 221_000.0,  # KamAZ diesel 300 hp [DB] (221 kW, BTR-82A), 80 % (assumed)
    brake_force=0.7 * _ZAHA_MASS * GRAVITY,  # (assumed)
    rolling_resistance=0.025,  # (assumed)
    drag=0.5 * _RHO * 1.0 * 6.0,  # Cd 1.0, frontal area 2.9 m x 2.1 m (assumed)
    max_speed=22.2,  # [m/s] 80 km/h (BTR-82A; BTR-80 up to 90 km/h [MW])
    max_reverse_speed=6.0,  # (assumed)
)

# --- Armata: main battle tank, tracked, slow to turn, after the T-14 Armata -----------------------
_ARMATA_MASS = 48_000.0  # [kg] about 48 t (early reports [DAB]; later up to 55 t [SAR])
_ARMATA_CONTACT = 5.2  # [m] track ground-contact length (assumed: 7 road wheels; Leopard 2: 4.95 m)
_ARMATA_TRACK = 2.9  # [m] between track centre lines (assumed; Leopard 2: about 2.8 m)
ARMATA = VehicleParams(
    kind=TRACKED,
    mass=_ARMATA_MASS,
    yaw_inertia=_box_inertia(_ARMATA_MASS, 8.7, 3.5),  # hull 8.7 m x 3.5 m (10.8 m with gun)
    wheelbase=_ARMATA_CONTACT,
    cg_to_front=0.5 * _ARMATA_CONTACT,  # unused (tracked)
    half_length=4.35,  # [m] hull 8.7 m (assumed; 10.8 m with the gun forward, reported)
    half_width=1.75,  # [m] 3.5 m (3.9 m over the side skirts, reported)
    # full steer at speed: the curvature of one track braked, radius B / 2 about the centre:
    # tan(max_steer) / L = 2 / B
    max_steer=math.atan(2.0 * _ARMATA_CONTACT / _ARMATA_TRACK),
    steer_rate=2.6,  # [rad/s] full tiller in 0.5 s (assumed)
    track_width=_ARMATA_TRACK,
    mu=0.7,  # track on firm soil (assumed; Wong: 0.5 to 0.9)
    lateral_friction=0.5,  # coefficient of lateral resistance (assumed; Wong: about 0.5 firm soil)
    max_yaw_rate=0.5,  # [rad/s] a full pivot in about 13 s (assumed): "slower turning rate"
    engine_force=0.6 * _ARMATA_MASS * GRAVITY,  # first gear (assumed)
    # A-85-3A (reported), 1,500 hp [SPK] (1,119 kW); 45 % reaches the tracks while accelerating,
    # calibrated on the Leopard 2's published 0-32 km/h in about 6 s (assumed)
    engine_power=0.45 * 1_119_000.0,
    brake_force=0.6 * _ARMATA_MASS * GRAVITY,  # (assumed)
    rolling_resistance=0.04,  # tracks on firm ground (assumed; Wong: 0.03 to 0.05)
    drag=0.5 * _RHO * 1.0 * 10.0,  # Cd 1.0, frontal area 10 m^2 (assumed)
    max_speed=22.2,  # [m/s] 80 km/h on roads (reported 75 to 90 km/h; 80-90 [DAB])
    max_reverse_speed=5.0,  # (assumed)
)

# --- Hovercraft: after the Griffon 2000TD, scaled to a game's small hovercraft -------------------
# Griffon 2000TD [GRF]: 11.7 m x 5.9 m, one 350 hp (261 kW) diesel for lift and thrust, 6.8 t
# (military), 35 kn. Scaled by 0.7 in length (8.2 m x 4.1 m): mass by 0.7^3,
# power by mass (same power-to-weight), half the power to thrust (integrated lift fan; assumed).
_HOVER_MASS = 2300.0  # [kg] 6.8 t x 0.343
_HOVER_LENGTH = 8.2  # [m]
_HOVER_INERTIA = _box_inertia(_HOVER_MASS, _HOVER_LENGTH, 4.1)
_HOVER_MAX_STEER = math.radians(25.0)  # rudder deflection (assumed)
_HOVER_YAW_DAMPING = _HOVER_INERTIA / 1.0  # yaw time constant 1 s (assumed)
HOVERCRAFT = VehicleParams(
    kind=HOVER,
    mass=_HOVER_MASS,
    yaw_inertia=_HOVER_INERTIA,
    wheelbase=_HOVER_LENGTH,  # body length (pure-pursuit equivalent)
    cg_to_front=0.5 * _HOVER_LENGTH,  # unused
    half_length=0.5 * _HOVER_LENGTH,
    half_width=2.05,  # [m] 4.1 m (scaled beam)
    max_steer=_HOVER_MAX_STEER,
    steer_rate=1.0,  # [rad/s] (assumed)
    mu=0.1,  # unused (no tyres)
    engine_force=0.15 * _HOVER_MASS * GRAVITY,  # static thrust (assumed; ~75 N/kW ducted fan)
    engine_power=0.5 * 261_000.0 * 0.343,  # [W] 45 kW to thrust (scaled, assumed half)
    brake_force=0.6 * 0.15 * _HOVER_MASS * GRAVITY,  # reverse pitch: 60 % of the thrust (assumed)
    rolling_resistance=0.02,  # cushion drag over land (assumed)
    drag=0.5 * _RHO * 0.6 * 10.25,  # Cd 0.6, frontal 4.1 m x 2.5 m (assumed)
    max_speed=18.0,  # [m/s] 35 kn (Griffon 2000TD, unscaled) [GRF]
    max_reverse_speed=4.0,  # (assumed)
    lateral_friction=0.1,  # skirt friction sideways (assumed; game-tamed, real skirts slip more)
    side_drag=0.5 * _RHO * 0.8 * 20.5,  # Cd 0.8, side area 8.2 m x 2.5 m (assumed)
    max_yaw_rate=1.0,  # [rad/s] (assumed)
    # steady yaw rate per forward speed at full rudder = tan(max_steer) / wheelbase
    rudder_torque=_HOVER_YAW_DAMPING * math.tan(_HOVER_MAX_STEER) / _HOVER_LENGTH,
    yaw_thruster_torque=0.15 * _HOVER_YAW_DAMPING,  # spins at 0.15 rad/s at rest (assumed)
    yaw_damping=_HOVER_YAW_DAMPING,
)

PRESETS = MappingProxyType(
    {
        "storm": STORM,
        "bolte": BOLTE,
        "panhard_crab": PANHARD_CRAB,
        "zaha": ZAHA,
        "armata": ARMATA,
        "hovercraft": HOVERCRAFT,
    }
)
"""The six presets by name, in the seed's order (easy: storm, bolte, panhard_crab; hard: zaha,
armata, hovercraft). Read-only."""

EASY = ("storm", "bolte", "panhard_crab")  # seed 001: "deemed easily maneuverable"
HARD = ("zaha", "armata", "hovercraft")  # "presented greater challenges"

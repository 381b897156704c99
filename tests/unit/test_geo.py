"""Unit tests for app.core.geo (SPEC section 3 cities and Chile geography)."""

import dataclasses

import pytest

from app.core.geo import (
    CITIES,
    REGIONS,
    City,
    Commune,
    Region,
    cities_by_region,
    city_by_slug,
    city_communes,
    commune_names_for_city,
    normalize_city_slug,
    region_by_id,
)
from app.core.text import slugify

SPEC_CITY_SLUGS = [
    "copiapo",
    "ovalle",
    "buin",
    "santiago-de-chile",
    "la-florida",
    "puente-alto",
    "san-bernardo",
    "maipu",
    "providencia",
    "macul",
    "valparaiso",
    "vina-del-mar",
    "rancagua",
    "san-fernando",
    "constitucion",
    "curico",
    "linares",
    "talca",
    "chillan",
    "concepcion",
    "los-angeles",
    "temuco",
    "valdivia",
    "osorno",
    "puerto-montt",
]

SPEC_REGIONS = [
    ("AT", "III", 3),
    ("CO", "IV", 4),
    ("VS", "V", 5),
    ("RM", "XIII", 13),
    ("LI", "VI", 6),
    ("ML", "VII", 7),
    ("NB", "XVI", 16),
    ("BI", "VIII", 8),
    ("AR", "IX", 9),
    ("LR", "XIV", 14),
    ("LL", "X", 10),
    ("MA", "XII", 12),
]

CITY_REGION = {
    "copiapo": "AT",
    "ovalle": "CO",
    "buin": "RM",
    "santiago-de-chile": "RM",
    "la-florida": "RM",
    "puente-alto": "RM",
    "san-bernardo": "RM",
    "maipu": "RM",
    "providencia": "RM",
    "macul": "RM",
    "valparaiso": "VS",
    "vina-del-mar": "VS",
    "rancagua": "LI",
    "san-fernando": "LI",
    "constitucion": "ML",
    "curico": "ML",
    "linares": "ML",
    "talca": "ML",
    "chillan": "NB",
    "concepcion": "BI",
    "los-angeles": "BI",
    "temuco": "AR",
    "valdivia": "LR",
    "osorno": "LL",
    "puerto-montt": "LL",
}


def _commune(region_id, name):
    return next((c for c in region_by_id(region_id).communes if c.name == name), None)


class TestRegions:
    def test_twelve_regions_in_table_order_with_spec_codes(self):
        assert [(r.id, r.roman_number, r.number) for r in REGIONS] == SPEC_REGIONS

    def test_region_names(self):
        assert [r.name for r in REGIONS] == [
            "Atacama",
            "Coquimbo",
            "Valparaíso",
            "Metropolitana de Santiago",
            "Libertador O'Higgins",
            "Maule",
            "Ñuble",
            "Biobío",
            "Araucanía",
            "Los Ríos",
            "Los Lagos",
            "Magallanes",
        ]

    def test_every_region_has_communes_with_slug_ids(self):
        for region in REGIONS:
            assert len(region.communes) >= 9
            for commune in region.communes:
                assert isinstance(commune, Commune)
                if commune.name != "Santiago":
                    assert commune.id == slugify(commune.name)

    def test_commune_ids_and_names_unique(self):
        ids = [c.id for r in REGIONS for c in r.communes]
        assert len(ids) == len(set(ids))
        names = [c.name for r in REGIONS for c in r.communes]
        assert len(names) == len(set(names))

    def test_santiago_commune_id_matches_city_slug(self):
        assert _commune("RM", "Santiago").id == "santiago-de-chile"

    @pytest.mark.parametrize(
        "region_id, name, commune_id",
        [
            ("AR", "Angol", "angol"),
            ("LR", "Los Lagos", "los-lagos"),
            ("MA", "Punta Arenas", "punta-arenas"),
        ],
    )
    def test_extra_communes_present(self, region_id, name, commune_id):
        commune = _commune(region_id, name)
        assert commune is not None and commune.id == commune_id

    @pytest.mark.parametrize(
        "region_id, name",
        [
            ("VS", "Viña del Mar"),
            ("BI", "Concepción"),
            ("BI", "Los Ángeles"),
            ("NB", "Chillán"),
            ("ML", "Curicó"),
            ("AT", "Copiapó"),
            ("RM", "Maipú"),
            ("RM", "Ñuñoa"),
            ("ML", "Constitución"),
            ("VS", "Valparaíso"),
        ],
    )
    def test_accented_commune_names(self, region_id, name):
        assert _commune(region_id, name) is not None

    def test_region_by_id(self):
        assert region_by_id("RM").name == "Metropolitana de Santiago"
        assert region_by_id("NB").roman_number == "XVI"
        assert region_by_id("rm") is None
        assert region_by_id("XX") is None
        assert region_by_id(None) is None

    def test_dataclasses_are_frozen(self):
        with pytest.raises(dataclasses.FrozenInstanceError):
            REGIONS[0].name = "x"
        with pytest.raises(dataclasses.FrozenInstanceError):
            CITIES[0].slug = "x"
        assert isinstance(REGIONS[0], Region) and isinstance(REGIONS[0].communes, tuple)


class TestCities:
    def test_twenty_five_cities_in_spec_order(self):
        assert len(CITIES) == 25
        assert [c.slug for c in CITIES] == SPEC_CITY_SLUGS
        assert all(isinstance(c, City) for c in CITIES)

    def test_city_regions(self):
        assert {c.slug: c.region_id for c in CITIES} == CITY_REGION

    def test_every_city_is_a_commune_of_its_region(self):
        for city in CITIES:
            region = region_by_id(city.region_id)
            ids = {c.id: c.name for c in region.communes}
            assert city.slug in ids, city.slug

    def test_extra_communes_are_not_cities(self):
        for slug in ("angol", "los-lagos", "punta-arenas"):
            assert city_by_slug(slug) is None

    @pytest.mark.parametrize(
        "slug, name",
        [
            ("santiago-de-chile", "Santiago de Chile"),
            ("la-florida", "La Florida"),
            ("vina-del-mar", "Viña del Mar"),
            ("copiapo", "Copiapó"),
            ("concepcion", "Concepción"),
            ("los-angeles", "Los Ángeles"),
            ("chillan", "Chillán"),
            ("curico", "Curicó"),
            ("maipu", "Maipú"),
            ("valparaiso", "Valparaíso"),
            ("puerto-montt", "Puerto Montt"),
            ("constitucion", "Constitución"),
            ("san-bernardo", "San Bernardo"),
        ],
    )
    def test_display_names(self, slug, name):
        assert city_by_slug(slug).name == name

    def test_city_by_slug_is_exact(self):
        assert city_by_slug("temuco").name == "Temuco"
        assert city_by_slug("Temuco") is None
        assert city_by_slug(" temuco") is None
        assert city_by_slug("santiago") is None
        assert city_by_slug("lima") is None
        assert city_by_slug("") is None
        assert city_by_slug(None) is None


class TestNormalizeCitySlug:
    @pytest.mark.parametrize("slug", SPEC_CITY_SLUGS)
    def test_valid_slug_is_itself(self, slug):
        assert normalize_city_slug(slug) == slug

    @pytest.mark.parametrize("slug", ["santiago", "Santiago", " SANTIAGO ", "Santiago-De-Chile"])
    def test_santiago(self, slug):
        assert normalize_city_slug(slug) == "santiago-de-chile"

    def test_lower_and_strip(self):
        assert normalize_city_slug("  Vina-Del-Mar ") == "vina-del-mar"

    @pytest.mark.parametrize("slug", ["lima", "", "angol", "punta-arenas", "viña-del-mar", "vina del mar", None, 5])
    def test_unknown_gives_none(self, slug):
        assert normalize_city_slug(slug) is None


class TestGrouping:
    def test_cities_by_region(self):
        grouped = cities_by_region()
        assert [r.id for r, _ in grouped] == ["AT", "CO", "VS", "RM", "LI", "ML", "NB", "BI", "AR", "LR", "LL"]
        as_slugs = {r.id: [c.slug for c in cities] for r, cities in grouped}
        assert as_slugs["RM"] == [
            "buin",
            "santiago-de-chile",
            "la-florida",
            "puente-alto",
            "san-bernardo",
            "maipu",
            "providencia",
            "macul",
        ]
        assert as_slugs["LL"] == ["osorno", "puerto-montt"]
        assert sorted(c.slug for _, cities in grouped for c in cities) == sorted(SPEC_CITY_SLUGS)

    def test_magallanes_has_no_city(self):
        assert "MA" not in [r.id for r, _ in cities_by_region()]

    def test_commune_names_for_city(self):
        names = commune_names_for_city("valdivia")
        assert names[0] == "Valdivia"
        assert "Los Lagos" in names and len(names) == 12
        rm = commune_names_for_city("santiago")
        assert "Santiago" in rm and "Maipú" in rm and "Puente Alto" in rm
        assert commune_names_for_city("temuco") == [c.name for c in region_by_id("AR").communes]
        assert "Angol" in commune_names_for_city("temuco")

    def test_commune_names_for_unknown_city(self):
        assert commune_names_for_city("lima") == []
        assert commune_names_for_city(None) == []


class TestCityArea:
    """The communes the directory offers for a city: its area's, not its whole region's (issue 33)."""

    @pytest.mark.parametrize("city", CITIES, ids=lambda city: city.slug)
    def test_every_area_is_of_communes_of_the_region_with_the_city_first(self, city):
        communes = city_communes(city.slug)
        region = {c.id for c in region_by_id(city.region_id).communes}
        assert communes[0].id == city.slug
        assert len(communes) == len(city.area) == len(set(communes))
        assert {c.id for c in communes} <= region

    def test_vina_del_mar_is_gran_valparaiso_without_the_islands(self):
        assert [c.name for c in city_communes("vina-del-mar")] == [
            "Viña del Mar",
            "Valparaíso",
            "Concón",
            "Quilpué",
            "Villa Alemana",
        ]
        assert {"Isla de Pascua", "Juan Fernández"} <= set(commune_names_for_city("vina-del-mar"))

    def test_santiago_is_gran_santiago(self):
        ids = [c.id for c in city_communes("santiago")]
        assert len(ids) == 34 and ids[0] == "santiago-de-chile"
        assert {"providencia", "puente-alto", "san-bernardo"} <= set(ids)
        assert not {"melipilla", "colina", "buin"} & set(ids)

    def test_unknown_city_has_none(self):
        assert city_communes("lima") == ()
        assert city_communes(None) == ()

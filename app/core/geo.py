"""Chile geography: the 12 regions of the product with their communes, and the 25 supported cities with their areas.

Commune ids are ``slugify(name)``, except the commune "Santiago", whose id is
"santiago-de-chile" so that every city slug is also the id of a commune of its region.
"""

from __future__ import annotations

from dataclasses import dataclass

from .text import slugify


@dataclass(frozen=True)
class Commune:
    """A commune (comuna): slug id and display name."""

    id: str
    name: str


@dataclass(frozen=True)
class Region:
    """A region: two-letter id, name, Roman numeral, number and its communes."""

    id: str
    name: str
    roman_number: str
    number: int
    communes: tuple[Commune, ...]


@dataclass(frozen=True)
class City:
    """A supported city: URL slug, display name, the id of its region and the names of its area's communes."""

    slug: str
    name: str
    region_id: str
    area: tuple[str, ...]


_COMMUNE_ID_OVERRIDES = {"Santiago": "santiago-de-chile"}


def _communes(*names: str) -> tuple[Commune, ...]:
    """Build communes from display names, deriving ids with slugify."""
    return tuple(Commune(_COMMUNE_ID_OVERRIDES.get(n, slugify(n)), n) for n in names)


# The Provincia de Santiago: its 32 communes, the core of the Región Metropolitana and of Gran Santiago.
_PROVINCIA_DE_SANTIAGO = (
    "Santiago",
    "Cerrillos",
    "Cerro Navia",
    "Conchalí",
    "El Bosque",
    "Estación Central",
    "Huechuraba",
    "Independencia",
    "La Cisterna",
    "La Florida",
    "La Granja",
    "La Pintana",
    "La Reina",
    "Las Condes",
    "Lo Barnechea",
    "Lo Espejo",
    "Lo Prado",
    "Macul",
    "Maipú",
    "Ñuñoa",
    "Pedro Aguirre Cerda",
    "Peñalolén",
    "Providencia",
    "Pudahuel",
    "Quilicura",
    "Quinta Normal",
    "Recoleta",
    "Renca",
    "San Joaquín",
    "San Miguel",
    "San Ramón",
    "Vitacura",
)

REGIONS: tuple[Region, ...] = (
    Region(
        "AT",
        "Atacama",
        "III",
        3,
        _communes(
            "Copiapó",
            "Caldera",
            "Tierra Amarilla",
            "Chañaral",
            "Diego de Almagro",
            "Vallenar",
            "Alto del Carmen",
            "Freirina",
            "Huasco",
        ),
    ),
    Region(
        "CO",
        "Coquimbo",
        "IV",
        4,
        _communes(
            "La Serena",
            "Coquimbo",
            "Andacollo",
            "La Higuera",
            "Paihuano",
            "Vicuña",
            "Illapel",
            "Canela",
            "Los Vilos",
            "Salamanca",
            "Ovalle",
            "Combarbalá",
            "Monte Patria",
            "Punitaqui",
            "Río Hurtado",
        ),
    ),
    Region(
        "VS",
        "Valparaíso",
        "V",
        5,
        _communes(
            "Valparaíso",
            "Casablanca",
            "Concón",
            "Juan Fernández",
            "Puchuncaví",
            "Quintero",
            "Viña del Mar",
            "Isla de Pascua",
            "Los Andes",
            "Calle Larga",
            "Rinconada",
            "San Esteban",
            "La Ligua",
            "Cabildo",
            "Papudo",
            "Petorca",
            "Zapallar",
            "Quillota",
            "La Calera",
            "Hijuelas",
            "La Cruz",
            "Nogales",
            "San Antonio",
            "Algarrobo",
            "Cartagena",
            "El Quisco",
            "El Tabo",
            "Santo Domingo",
            "San Felipe",
            "Catemu",
            "Llaillay",
            "Panquehue",
            "Putaendo",
            "Santa María",
            "Quilpué",
            "Limache",
            "Olmué",
            "Villa Alemana",
        ),
    ),
    Region(
        "RM",
        "Metropolitana de Santiago",
        "XIII",
        13,
        _communes(
            *_PROVINCIA_DE_SANTIAGO,
            "Puente Alto",
            "Pirque",
            "San José de Maipo",
            "Colina",
            "Lampa",
            "Tiltil",
            "San Bernardo",
            "Buin",
            "Calera de Tango",
            "Paine",
            "Melipilla",
            "Alhué",
            "Curacaví",
            "María Pinto",
            "San Pedro",
            "Talagante",
            "El Monte",
            "Isla de Maipo",
            "Padre Hurtado",
            "Peñaflor",
        ),
    ),
    Region(
        "LI",
        "Libertador O'Higgins",
        "VI",
        6,
        _communes(
            "Rancagua",
            "Codegua",
            "Coinco",
            "Coltauco",
            "Doñihue",
            "Graneros",
            "Las Cabras",
            "Machalí",
            "Malloa",
            "Mostazal",
            "Olivar",
            "Peumo",
            "Pichidegua",
            "Quinta de Tilcoco",
            "Rengo",
            "Requínoa",
            "San Vicente",
            "Pichilemu",
            "La Estrella",
            "Litueche",
            "Marchigüe",
            "Navidad",
            "Paredones",
            "San Fernando",
            "Chépica",
            "Chimbarongo",
            "Lolol",
            "Nancagua",
            "Palmilla",
            "Peralillo",
            "Placilla",
            "Pumanque",
            "Santa Cruz",
        ),
    ),
    Region(
        "ML",
        "Maule",
        "VII",
        7,
        _communes(
            "Talca",
            "Constitución",
            "Curepto",
            "Empedrado",
            "Maule",
            "Pelarco",
            "Pencahue",
            "Río Claro",
            "San Clemente",
            "San Rafael",
            "Cauquenes",
            "Chanco",
            "Pelluhue",
            "Curicó",
            "Hualañé",
            "Licantén",
            "Molina",
            "Rauco",
            "Romeral",
            "Sagrada Familia",
            "Teno",
            "Vichuquén",
            "Linares",
            "Colbún",
            "Longaví",
            "Parral",
            "Retiro",
            "San Javier",
            "Villa Alegre",
            "Yerbas Buenas",
        ),
    ),
    Region(
        "NB",
        "Ñuble",
        "XVI",
        16,
        _communes(
            "Chillán",
            "Bulnes",
            "Chillán Viejo",
            "El Carmen",
            "Pemuco",
            "Pinto",
            "Quillón",
            "San Ignacio",
            "Yungay",
            "Quirihue",
            "Cobquecura",
            "Coelemu",
            "Ninhue",
            "Portezuelo",
            "Ránquil",
            "Treguaco",
            "San Carlos",
            "Coihueco",
            "Ñiquén",
            "San Fabián",
            "San Nicolás",
        ),
    ),
    Region(
        "BI",
        "Biobío",
        "VIII",
        8,
        _communes(
            "Concepción",
            "Coronel",
            "Chiguayante",
            "Florida",
            "Hualqui",
            "Lota",
            "Penco",
            "San Pedro de la Paz",
            "Santa Juana",
            "Talcahuano",
            "Tomé",
            "Hualpén",
            "Lebu",
            "Arauco",
            "Cañete",
            "Contulmo",
            "Curanilahue",
            "Los Álamos",
            "Tirúa",
            "Los Ángeles",
            "Antuco",
            "Cabrero",
            "Laja",
            "Mulchén",
            "Nacimiento",
            "Negrete",
            "Quilaco",
            "Quilleco",
            "San Rosendo",
            "Santa Bárbara",
            "Tucapel",
            "Yumbel",
            "Alto Biobío",
        ),
    ),
    Region(
        "AR",
        "Araucanía",
        "IX",
        9,
        _communes(
            "Temuco",
            "Carahue",
            "Cunco",
            "Curarrehue",
            "Freire",
            "Galvarino",
            "Gorbea",
            "Lautaro",
            "Loncoche",
            "Melipeuco",
            "Nueva Imperial",
            "Padre Las Casas",
            "Perquenco",
            "Pitrufquén",
            "Pucón",
            "Saavedra",
            "Teodoro Schmidt",
            "Toltén",
            "Vilcún",
            "Villarrica",
            "Cholchol",
            "Angol",
            "Collipulli",
            "Curacautín",
            "Ercilla",
            "Lonquimay",
            "Los Sauces",
            "Lumaco",
            "Purén",
            "Renaico",
            "Traiguén",
            "Victoria",
        ),
    ),
    Region(
        "LR",
        "Los Ríos",
        "XIV",
        14,
        _communes(
            "Valdivia",
            "Corral",
            "Lanco",
            "Los Lagos",
            "Máfil",
            "Mariquina",
            "Paillaco",
            "Panguipulli",
            "La Unión",
            "Futrono",
            "Lago Ranco",
            "Río Bueno",
        ),
    ),
    Region(
        "LL",
        "Los Lagos",
        "X",
        10,
        _communes(
            "Puerto Montt",
            "Calbuco",
            "Cochamó",
            "Fresia",
            "Frutillar",
            "Los Muermos",
            "Llanquihue",
            "Maullín",
            "Puerto Varas",
            "Castro",
            "Ancud",
            "Chonchi",
            "Curaco de Vélez",
            "Dalcahue",
            "Puqueldón",
            "Queilén",
            "Quellón",
            "Quemchi",
            "Quinchao",
            "Osorno",
            "Puerto Octay",
            "Purranque",
            "Puyehue",
            "Río Negro",
            "San Juan de la Costa",
            "San Pablo",
            "Chaitén",
            "Futaleufú",
            "Hualaihué",
            "Palena",
        ),
    ),
    Region(
        "MA",
        "Magallanes",
        "XII",
        12,
        _communes(
            "Punta Arenas",
            "Laguna Blanca",
            "Río Verde",
            "San Gregorio",
            "Cabo de Hornos",
            "Antártica",
            "Porvenir",
            "Primavera",
            "Timaukel",
            "Natales",
            "Torres del Paine",
        ),
    ),
)

# The area of each city: the communes its visitors look in, the city's own first (a metropolitan area such as Gran
# Valparaíso or Gran Concepción, a city and the communes around it, or a province). The directory offers these
# alone (filters, commune pages, sitemaps); a listing may still name any commune of the city's region.
_GRAN_SANTIAGO = (*_PROVINCIA_DE_SANTIAGO, "Puente Alto", "San Bernardo")
CITIES: tuple[City, ...] = (
    City("copiapo", "Copiapó", "AT", ("Copiapó", "Caldera", "Tierra Amarilla")),
    City("ovalle", "Ovalle", "CO", ("Ovalle", "Combarbalá", "Monte Patria", "Punitaqui", "Río Hurtado")),
    City("buin", "Buin", "RM", ("Buin", "Paine", "San Bernardo", "Calera de Tango")),
    City("santiago-de-chile", "Santiago de Chile", "RM", _GRAN_SANTIAGO),
    City(
        "la-florida", "La Florida", "RM", ("La Florida", "Macul", "Peñalolén", "La Granja", "La Pintana", "Puente Alto")
    ),
    City(
        "puente-alto", "Puente Alto", "RM", ("Puente Alto", "La Florida", "La Pintana", "Pirque", "San José de Maipo")
    ),
    City(
        "san-bernardo",
        "San Bernardo",
        "RM",
        ("San Bernardo", "El Bosque", "La Pintana", "Lo Espejo", "Maipú", "Calera de Tango", "Buin"),
    ),
    City(
        "maipu",
        "Maipú",
        "RM",
        ("Maipú", "Pudahuel", "Estación Central", "Cerrillos", "San Bernardo", "Calera de Tango", "Padre Hurtado"),
    ),
    City(
        "providencia",
        "Providencia",
        "RM",
        ("Providencia", "Santiago", "Recoleta", "Vitacura", "Las Condes", "Ñuñoa"),
    ),
    City("macul", "Macul", "RM", ("Macul", "Ñuñoa", "Peñalolén", "La Florida", "San Joaquín")),
    City("valparaiso", "Valparaíso", "VS", ("Valparaíso", "Viña del Mar", "Concón", "Quilpué", "Villa Alemana")),
    City("vina-del-mar", "Viña del Mar", "VS", ("Viña del Mar", "Valparaíso", "Concón", "Quilpué", "Villa Alemana")),
    City("rancagua", "Rancagua", "LI", ("Rancagua", "Machalí", "Graneros", "Olivar", "Doñihue")),
    City("san-fernando", "San Fernando", "LI", ("San Fernando", "Chimbarongo", "Placilla", "Nancagua")),
    City("constitucion", "Constitución", "ML", ("Constitución", "Empedrado", "Curepto")),
    City("curico", "Curicó", "ML", ("Curicó", "Molina", "Romeral", "Teno", "Rauco", "Sagrada Familia")),
    City("linares", "Linares", "ML", ("Linares", "Yerbas Buenas", "Colbún", "Longaví", "Villa Alegre", "San Javier")),
    City("talca", "Talca", "ML", ("Talca", "Maule", "San Clemente", "Pelarco", "Pencahue", "San Rafael")),
    City("chillan", "Chillán", "NB", ("Chillán", "Chillán Viejo", "Bulnes", "Pinto", "Coihueco")),
    City(
        "concepcion",
        "Concepción",
        "BI",
        (
            "Concepción",
            "Talcahuano",
            "Hualpén",
            "San Pedro de la Paz",
            "Chiguayante",
            "Penco",
            "Tomé",
            "Coronel",
            "Lota",
            "Hualqui",
            "Santa Juana",
        ),
    ),
    City(
        "los-angeles",
        "Los Ángeles",
        "BI",
        ("Los Ángeles", "Cabrero", "Laja", "Mulchén", "Nacimiento", "Negrete", "Santa Bárbara"),
    ),
    City(
        "temuco",
        "Temuco",
        "AR",
        ("Temuco", "Padre Las Casas", "Cholchol", "Freire", "Lautaro", "Nueva Imperial", "Vilcún"),
    ),
    City("valdivia", "Valdivia", "LR", ("Valdivia", "Corral", "Mariquina", "Máfil", "Los Lagos", "Paillaco")),
    City(
        "osorno",
        "Osorno",
        "LL",
        ("Osorno", "Puerto Octay", "Purranque", "Puyehue", "Río Negro", "San Juan de la Costa", "San Pablo"),
    ),
    City(
        "puerto-montt",
        "Puerto Montt",
        "LL",
        ("Puerto Montt", "Puerto Varas", "Llanquihue", "Frutillar", "Calbuco", "Los Muermos", "Maullín"),
    ),
)

_CITY_BY_SLUG = {city.slug: city for city in CITIES}
_REGION_BY_ID = {region.id: region for region in REGIONS}
_CITY_ALIASES = {"santiago": "santiago-de-chile"}


def city_by_slug(slug: object) -> City | None:
    """Return the supported city with exactly this slug, or None (also for non-str)."""
    if not isinstance(slug, str):
        return None
    return _CITY_BY_SLUG.get(slug)


def normalize_city_slug(slug: object) -> str | None:
    """Lower-case and strip a slug; "santiago" -> "santiago-de-chile"; unknown -> None."""
    if not isinstance(slug, str):
        return None
    key = slug.strip().lower()
    key = _CITY_ALIASES.get(key, key)
    return key if key in _CITY_BY_SLUG else None


def region_by_id(region_id: object) -> Region | None:
    """Return the region with this id (e.g. "RM"), or None."""
    if not isinstance(region_id, str):
        return None
    return _REGION_BY_ID.get(region_id)


def cities_by_region() -> list[tuple[Region, list[City]]]:
    """Regions (table order) that contain supported cities, each with its cities in SPEC order."""
    grouped = []
    for region in REGIONS:
        cities = [city for city in CITIES if city.region_id == region.id]
        if cities:
            grouped.append((region, cities))
    return grouped


def commune_names_for_city(slug: object) -> list[str]:
    """The commune names a listing of this city may name: its region's, in the region's data order (capital first).

    The slug is normalized with ``normalize_city_slug``; an unknown city gives [].
    """
    key = normalize_city_slug(slug)
    if key is None:
        return []
    return [commune.name for commune in _REGION_BY_ID[_CITY_BY_SLUG[key].region_id].communes]


def place_name(city_name: str, commune: Commune | None = None) -> str:
    """Where a page's listings are, as its heading and title name it: the city, or "Providencia, Santiago" for one
    of its communes (a commune named as its city, such as Talca's, is the city)."""
    if commune is None or commune.name == city_name:
        return city_name
    return f"{commune.name}, {city_name}"


def city_communes(slug: object) -> tuple[Commune, ...]:
    """The communes of the city's area, the city's own first: all the directory offers (filters, commune pages,
    sitemaps). The slug is normalized with ``normalize_city_slug``; an unknown city gives ()."""
    key = normalize_city_slug(slug)
    if key is None:
        return ()
    city = _CITY_BY_SLUG[key]
    by_name = {commune.name: commune for commune in _REGION_BY_ID[city.region_id].communes}
    return tuple(by_name[name] for name in city.area)

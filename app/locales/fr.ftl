# Anteroom's buyer pages, in French (translated from en.ftl, the source every other language follows).
# Ids are grouped by page; a `$n` is a whole number, written and made plural the
# language's way. Operator pages and the JSON API's messages are not here: they stay English.

## Numbers of time and money (app/src/words.rs)

duration-seconds = { $n ->
    [one] une seconde
    [many] { $n } de secondes
   *[other] { $n } secondes
}
duration-minutes = { $n ->
    [one] une minute
    [many] { $n } de minutes
   *[other] { $n } minutes
}
duration-hours = { $n ->
    [one] 1 heure
    [many] { $n } d'heures
   *[other] { $n } heures
}
# "1 hour 5 minutes": $hours is duration-hours.
duration-hours-minutes = { $hours } { $m ->
    [one] { $m } minute
    [many] { $m } de minutes
   *[other] { $m } minutes
}
# "about 3 minutes": $duration is one of the durations above.
wait-about = environ { $duration }
# "about 40 seconds to 2 minutes": two durations.
wait-range = environ { $low } à { $high }
# Both ends in seconds (more than one): "about 20 to 40 seconds".
wait-range-seconds = environ { $low } à { $high } secondes
# Both ends in minutes (more than one): "about 3 to 4 minutes".
wait-range-minutes = environ { $low } à { $high } minutes
wait-under-a-minute = moins d'une minute
countdown-days = { $days ->
    [one] { $days } jour
    [many] { $days } de jours
   *[other] { $days } jours
} { $hours } h

weekday = { $n ->
    [1] lundi
    [2] mardi
    [3] mercredi
    [4] jeudi
    [5] vendredi
    [6] samedi
   *[7] dimanche
}
month = { $n ->
    [1] janvier
    [2] février
    [3] mars
    [4] avril
    [5] mai
    [6] juin
    [7] juillet
    [8] août
    [9] septembre
    [10] octobre
    [11] novembre
   *[12] décembre
}
# "Tuesday 1 December, 19:00": $weekday and $month are the names above, $time is 19:00.
day-and-time = { $weekday } { $day ->
    [1] 1er
   *[other] { $day }
} { $month } à { $time }
day-and-time-with-year = { $weekday } { $day ->
    [1] 1er
   *[other] { $day }
} { $month } { $year } à { $time }
# "19:00 Berlin time"; $zone is zone-time below, or UTC.
time-in-zone = { $time } ({ $zone })
# A zone's name by its city: "Berlin time".
zone-time = heure de { $city }

## The outlook

outlook-likely = Il devrait rester des places quand votre tour viendra.
outlook-uncertain = Il restera peut-être des places quand votre tour viendra : cela dépend des places réservées qui seront libérées.
outlook-unlikely = Il est peu probable qu'il reste des places quand votre tour viendra, sauf si beaucoup de places réservées sont libérées.

## Moving a place to another device

needs-device = Pour cette vente, chaque place dans la file est liée à l'appareil qui l'a prise, ce qui nécessite JavaScript et un navigateur capable de créer une clé (WebCrypto). Ce navigateur n'en est pas capable : il ne peut donc pas prendre de place ici. Ouvrez cette page dans un navigateur à jour, avec JavaScript activé.
move-explained = Sur votre autre appareil, scannez ce code, ou ouvrez-y cette vente et saisissez le code sous « { moving-have-code } ». Votre place dans la file y sera transférée avec sa position, une seule fois ; cette page n'aura alors plus de place.
claim-refused = Ce code a déjà été utilisé, a expiré ou est inconnu : aucune place n'a été transférée ici. Cette page garde sa propre place dans la file.
claimed = Votre place a été transférée ici depuis votre autre appareil, avec sa position.
moving-place-waiting = Votre autre appareil occupe la position n° { $n } dans la file.
moving-place-in-line = Votre autre appareil a une place dans la file.
moving-place-admitted = Votre autre appareil a été admis.
moving-place-in-draw = Votre autre appareil participe au tirage au sort.
own-place-given-up = Cet appareil occupe la position n° { $n } dans la file ; s'il reçoit l'autre place, il perdra la sienne.
own-ticket-given-up = Cet appareil participe au tirage au sort ; s'il reçoit l'autre place, il perdra son ticket de tirage.
# "Valid until 19:14 Berlin time, once."
move-valid-until = Valable jusqu'à { $time }, une seule fois.
# $time: "19:04", $zone: "Berlin time".
place-moved = Votre place a été transférée sur un autre appareil à { $time } ({ $zone }). Continuez sur cet autre appareil ; cette page n'a plus de place dans la file.
seats-coming = C'est votre tour : votre plan de salle arrive.
unreadable = Cette page n'a pas pu lire la réponse de notre serveur. Rechargez-la pour réessayer.

## What a form posted without JavaScript comes back to ($wait: "about 12 seconds")

note-released = Places libérées. Elles sont de nouveau disponibles pour les autres acheteurs.
note-seat-taken = Quelqu'un vient de prendre une place que vous aviez choisie : rien n'a été réservé. Le plan affiche maintenant les places restantes ; faites un nouveau choix.
note-not-together = Il ne reste pas autant de places côte à côte dans cette section : rien n'a été réservé. Essayez avec moins de places ou une autre section.
note-no-seats = Vous n'avez choisi aucune place. Cochez les places souhaitées, ou laissez-nous trouver les meilleures.
note-too-many-seats = C'est plus de places qu'un acheteur ne peut en réserver pour cette vente : rien n'a été réservé. Choisissez-en moins.
note-bad-form = Nous n'avons pas pu lire ce formulaire : rien n'a été modifié. Voici de nouveau la page ; veuillez réessayer.
note-admission-ended = Le temps pour choisir vos places est écoulé : vous êtes de retour dans la file.
note-not-your-turn = Ce n'est pas encore votre tour de choisir vos places. Vous gardez votre place dans la file ; cette page vous laissera entrer quand ce sera votre tour.
note-claim-conflict = Cette place ne peut pas être transférée sur ce navigateur : soit le code vient de ce navigateur, soit ce navigateur est déjà admis, soit sa place a déjà été transférée une fois. Rien n'a changé.
note-admission-missing = Votre navigateur a envoyé ce formulaire sans votre autorisation d'accès : rien n'a été réservé. Voici de nouveau le plan de salle ; veuillez réessayer.
note-no-session = Votre navigateur a envoyé ce formulaire sans notre cookie de session : nous n'avons pas pu vérifier qu'il s'agissait de vous, et rien n'a été modifié. Autorisez les cookies pour ce site et réessayez.
note-stale-form = Ce formulaire provient d'une visite précédente de cette page : rien n'a été modifié. Voici la page, à jour ; veuillez réessayer.
note-rate-limited = Vous avez fait trop de tentatives au cours de la dernière minute : rien n'a été modifié. Réessayez dans { $wait }.
note-busy = Anteroom est saturé en ce moment : rien n'a été modifié. Réessayez dans { $wait }.
note-unavailable = Une partie d'Anteroom ne répond pas pour le moment : rien n'a été modifié. Réessayez dans { $wait }.
note-declined = Le paiement a été refusé. Vos places restent réservées ; vous pouvez réessayer.
note-pay-not-done = Votre paiement n'a pas encore abouti. Vos places restent réservées et ne vous seront jamais facturées deux fois ; réessayez dans { $wait }.
note-hold-ended = Votre réservation a expiré avant le paiement : rien n'a été débité et les places ont été remises en vente. Faites un nouveau choix si vous le souhaitez.
note-already-paid = Ces places sont déjà payées : elles ne peuvent pas être libérées.
note-no-hold = Nous n'avons trouvé aucune réservation correspondante à votre nom : rien n'a été modifié. Voici où vous en êtes.
note-not-open = La vente n'est pas encore ouverte : rien n'a été modifié. Cette page affiche le compte à rebours jusqu'à l'ouverture.
note-failed = Un problème est survenu de notre côté : l'opération n'a pas abouti. Veuillez réessayer.

## What went wrong, by the API's error code

error-network = Impossible de joindre Anteroom. Vérifiez votre connexion ; nous continuons d'essayer.
error-rate-limited = Trop de tentatives depuis votre réseau au cours de la dernière minute : rien n'a été modifié. Patientez un instant, puis réessayez.
error-unavailable = Une partie d'Anteroom ne répond pas pour le moment : rien n'a été modifié. Veuillez réessayer dans quelques secondes.
error-seat-unavailable = Quelqu'un vient de prendre une place que vous aviez choisie : rien n'a été réservé. Faites un nouveau choix.
error-not-admitted = Ce n'est pas votre tour de choisir vos places, ou le temps pour choisir est écoulé. Vous gardez votre place dans la file.
error-not-in-queue = Cette page n'a plus de place dans la file. Rechargez-la pour en prendre une.
error-not-found = Élément introuvable. Rechargez la page pour voir où vous en êtes.
error-not-open = La vente n'est pas encore ouverte. Cette page affiche le compte à rebours jusqu'à l'ouverture.
error-conflict = Cette action est entrée en conflit avec une modification faite il y a un instant : rien n'a été modifié. Rechargez la page et réessayez.
error-unauthorized = Votre navigateur n'a pas envoyé notre cookie de session. Autorisez les cookies pour ce site et rechargez la page.
error-forbidden = Cette action n'est pas autorisée pour votre compte dans cette vente.
error-bad-request = Nous n'avons pas pu lire cette demande : rien n'a été modifié. Veuillez réessayer.
error-internal = Un problème est survenu de notre côté. Veuillez réessayer.


## The event's page around its stages (app/src/onsale/mod.rs)

page-finding-place = Recherche de votre place dans la file…
page-sign-in-to-join = Connectez-vous pour rejoindre la file
page-not-for-your-account = Cette vente n'est pas ouverte à votre compte
page-sign-in = Se connecter
page-all-events = Voir tous les événements
# The sign-in's own pages, when it does not go through (each with a way back).
signin-not-set-up-title = La connexion n'est pas configurée ici
signin-not-set-up = Le site de cette vente n'a pas de connexion configurée : vous ne pouvez pas vous connecter ici.
signin-not-matched-title = Cette connexion n'a pas commencé ici
signin-not-matched = Cette connexion ne correspond à aucune de celles que ce navigateur a commencées (ou elle a pris plus de 10 minutes). Recommencez-la.
signin-unavailable-title = La connexion est indisponible pour le moment
signin-too-many-title = Trop de connexions depuis votre réseau
signin-failed-title = La connexion n'a pas abouti
signin-unavailable = Le service de connexion ne répond pas pour le moment. Réessayez dans un instant.
signin-failed = La connexion n'a pas pu aboutir : vous n'êtes pas connecté. Réessayez.
signin-back = Retour
# The page an instance at capacity answers instead of a waiting room (it comes back by itself).
busy-title = Un instant
busy-place-kept = Anteroom est saturé en ce moment ; si vous avez une place dans la file, vous la gardez.
page-could-not-open = Impossible d'ouvrir cette vente
page-try-again = Réessayer
page-tries-again-in = Cette page réessaiera d'elle-même dans { $n ->
    [one] { $n } seconde
    [many] { $n } de secondes
   *[other] { $n } secondes
}.

## What the page's live region says to a screen reader when the stage changes

say-not-open = La vente n'est pas encore ouverte.
# $ticket: the buyer's ticket in the draw, a code.
say-pre-queue = Vous êtes dans la pré-file avec le ticket de tirage { $ticket }. Votre place dans la file sera attribuée par tirage au sort.
say-paused = Vous êtes dans la file. La vente est en pause.
# $wait: "about 5 minutes", "less than a minute".
say-waiting = Vous êtes dans la file. Attente restante : { $wait }.
say-sold-out = Complet : toutes les places ont été vendues.
say-moved = Votre place a été transférée sur un autre appareil. Continuez sur cet autre appareil.
say-choosing = C'est votre tour : choisissez vos places.
say-holding = Vos places sont réservées. Payez avant la fin du temps imparti.
say-confirmed = C'est fait. Vos places sont achetées.

## Around every page, and the list of events (app/src/pages.rs)

# The name of the language switcher, for screen readers.
languages = Langue
not-found = Page introuvable
not-found-here = Il n'y a aucune page à cette adresse.
not-found-events = Voir les événements en vente.
events-title = Événements · Anteroom
events-heading = Événements en vente
events-show-details = Afficher les détails de la salle
events-hide-details = Masquer les détails de la salle
events-loading = Chargement des événements…
events-none = Aucun événement n'est en vente pour le moment.
events-no-waiting = En vente : sans attente
events-paused = Salle d'attente en pause
events-open = Salle d'attente ouverte
# $opens: "Tuesday 1 December 2026, 19:00 Berlin time".
events-opens = Ouverture de la vente : { $opens }
events-opens-with-pre-queue = Ouverture de la vente : { $opens } ; pré-file à partir de { $prequeue } (toutes les personnes inscrites ont les mêmes chances)
events-admitted-per-second = Entrées par seconde
events-hold-lasts = Durée de réservation
events-minutes = { $n } min
events-seats-per-buyer = Places par acheteur

## Before the line: the countdowns and the pre-queue (app/src/onsale/opening.rs)

opening-not-yet = La vente n'est pas encore ouverte
# $time: when the sale opens, e.g. "Tuesday 1 December, 19:00 (Berlin time)".
opening-sale-at = Ouverture de la vente : { $time }
# $time: when the pre-queue opens; $countdown: "2:05", "1:02:05" or "2 days 3 h".
opening-prequeue-at = Ouverture de la pré-file : { $time }, soit dans { $countdown }.
# $prequeue: when the pre-queue opens; $sale: when the sale opens (and the draw is made).
opening-prequeue-explained = Toutes les personnes qui rejoignent la pré-file entre { $prequeue } et { $sale } ont les mêmes chances : à l'ouverture de la vente ({ $sale }), un tirage au sort les place toutes dans la file dans un ordre aléatoire, devant celles qui arrivent plus tard. Arriver en premier ne change rien, inutile donc de vous précipiter : venez quand vous voulez avant { $sale }.
# $countdown: "2:05", "1:02:05" or "2 days 3 h".
opening-sale-in = Ouverture dans { $countdown }. Ensuite, premier arrivé, premier servi.
opening-keep-open = Gardez cette page ouverte : elle vous inscrira automatiquement le moment venu.
opening-in-prequeue = Vous êtes dans la pré-file
# $ticket: the buyer's ticket in the draw, a random code.
opening-your-ticket = Votre ticket de tirage : { $ticket }
# $time: when the sale opens; $countdown: "2:05", "1:02:05" or "2 days 3 h".
opening-draw-at = Tirage au sort : { $time }, soit dans { $countdown }.
opening-draw-now = Tirage au sort en cours : votre place arrive dans un instant.
# $time: when the sale opens (and the draw is made).
opening-draw-explained = Toutes les personnes inscrites avant { $time } ont les mêmes chances : s'inscrire tôt ou à la dernière seconde ne change rien. À l'ouverture ({ $time }), un tirage au sort classe tous les tickets dans un ordre aléatoire : c'est l'ordre de la file, devant toutes les personnes arrivées après { $time }.
opening-ticket-kept = Gardez cette page ouverte, ou revenez avant le tirage : votre ticket reste le vôtre, dans tous vos onglets. Il est aléatoire et ne révèle rien sur vous ; après le tirage, chacun peut vérifier la place attribuée à chaque ticket.

## The waiting room (app/src/onsale/waiting.rs)

waiting-in-room = Vous êtes dans la salle d'attente
# $place: waiting-position or waiting-position-about, shown in bold.
waiting-place = Votre place dans la file : { $place }
# The buyer's exact place in line: "#14,812".
waiting-position = n° { $n }
# The buyer's place in line when it is an estimate: "about #14,812".
waiting-position-about = environ n° { $n }
waiting-paused = La vente est momentanément en pause. Vous gardez votre place ; personne ne peut vous dépasser.
# $wait: "about 3 to 4 minutes", shown in bold.
waiting-turn-in = Votre tour arrive dans { $wait }.
waiting-progress = Progression depuis votre arrivée
# How often the page refreshes itself, in seconds.
waiting-refresh-every = { $n ->
    [60] toutes les minutes
    [one] chaque seconde
    [many] toutes les { $n } secondes
   *[other] toutes les { $n } secondes
}
# $every: waiting-refresh-every ("every 3 seconds").
waiting-keep-open = Gardez cette page ouverte : elle avance d'elle-même ({ $every }) et vous laissera entrer quand ce sera votre tour. Actualiser la page ou ouvrir d'autres onglets ne change pas votre place.
waiting-refreshes = Cette page s'actualise d'elle-même, moins souvent tant que votre tour est encore loin.
# $ticket: the buyer's ticket in the draw (a code); $place: the place the draw gave it ("14,812").
waiting-drawn-place = Votre place vient du tirage au sort : le ticket { $ticket } a obtenu la place n° { $place }.
# $address: the web address where the draw is published (a link); $command: a command line to check it.
waiting-check-draw = Vérifiez par vous-même : le tirage est publié à l'adresse { $address } (le secret fixé avant l'ouverture de la pré-file, la balise d'aléa, la graine et tous les tickets dans l'ordre). Chacun peut le recalculer, ou exécuter { $command }.
# Stands for the sale's web address in a command line the buyer may run.
waiting-this-site = <ce site>
waiting-recovered = La salle d'attente vient de se rétablir après une panne de son stockage. Votre place est conservée selon votre ordre d'arrivée ; votre position a pu reculer le temps que les admissions perdues pendant la panne soient refaites.
waiting-turn-passed = Votre tour est passé sans que vous ayez choisi : vous êtes de retour dans la file.

## While the browser joins the line (app/src/onsale/arriving.rs)

arriving-getting-place = Obtention de votre place…
arriving-proof-work = Pour cette vente, chaque navigateur doit effectuer quelques secondes de calcul avant de rejoindre la file, afin que personne ne puisse prendre des places en masse. Votre navigateur s'en charge en ce moment ; gardez cette page ouverte, elle continuera d'elle-même.
arriving-proof-needs-script = Ce calcul nécessite JavaScript : activez-le pour ce site et rechargez la page.
arriving-joining = Un instant : votre navigateur rejoint la file.
arriving-reloads = Cette page va se recharger dans une seconde avec votre place.

## Pages without JavaScript (app/src/onsale/noscript.rs)

noscript-countdown-refresh = Cette page s'actualise d'elle-même ; son compte à rebours est exact à chaque actualisation.

## The buyer's turn: the seat map (app/src/onsale/seats.rs)

seats-your-turn = Vous y êtes : c'est votre tour.
seats-title = Choisissez vos places
# $n: how many seats one buyer may hold at this sale.
seats-intro = { $n ->
    [one] 1 place au maximum. Ouvrez une section et cochez une place pour la choisir, ou laissez-nous trouver la meilleure.
    [many] Jusqu'à { $n } de places. Ouvrez une section et cochez des places pour les choisir, ou laissez-nous trouver les meilleures places côte à côte.
   *[other] Jusqu'à { $n } places. Ouvrez une section et cochez des places pour les choisir, ou laissez-nous trouver les meilleures places côte à côte.
}
# The label of the list of the hall's sections (read by screen readers).
seats-sections = Sections
# The map's legend: what a seat's colour means.
seats-available = Disponible
seats-chosen = Votre choix
seats-held = Réservée
seats-sold = Vendue
# The buyer picks how large the seats are drawn.
seats-size = Taille des places
seats-size-small = Petite
seats-size-medium = Moyenne
seats-size-large = Grande
# Marks where the stage is, above the seats.
seats-stage = Scène
# A section's tile in the overview: its seats still free.
seats-left = { $n ->
    [0] Aucune place libre pour l'instant
    [one] 1 place restante
    [many] { $n } de places restantes
   *[other] { $n } places restantes
}
# A section's prices, cheapest to dearest: "25.00 EUR to 45.00 EUR".
seats-price-range = de { $low } à { $high }
# A seat's name: "Stalls row 4 seat 12" ($section and $row are the venue's own names).
seats-seat = { $section } rang { $row } place { $seat }
# A seat the map no longer shows, by its code.
seats-seat-id = place { $id }
# Between seats' names in a list: "Stalls row 4 seat 12, Stalls row 4 seat 13".
seats-list-separator = { ", " }
# A row of seats, as screen readers name it: "Stalls row 4".
seats-row = { $section } rang { $row }
# A seat's checkbox, as screen readers read it: "Stalls row 4 seat 12, 45.00 EUR, available".
seats-seat-described = { $section } rang { $row } place { $seat }, { $price }, { $status ->
    [available] disponible
    [held] réservée
   *[sold] vendue
}
# $n: how many seats are ticked.
seats-hold-button = { $n ->
    [0] Réserver les places cochées
    [one] Réserver 1 place
    [many] Réserver { $n } de places
   *[other] Réserver { $n } places
}
seats-best = Ou : meilleures places disponibles
seats-best-section = Section
# How many seats to find together.
seats-best-quantity = Places
seats-find = Trouver des places
# $seats: the seats' names, as a list ("Stalls row 4 seat 12, Stalls row 4 seat 13").
seats-taken = Quelqu'un vient de prendre : { $seats }. Le plan affiche maintenant les places restantes ; faites un nouveau choix.
seats-not-together = Il ne reste pas autant de places côte à côte dans cette section. Essayez avec moins de places ou une autre section.
# $n: how many seats one buyer may hold at this sale.
seats-limit-reached = { $n ->
    [one] Vous pouvez réserver 1 place au maximum ; décochez-la pour en choisir une autre.
    [many] Vous pouvez réserver { $n } de places au maximum ; décochez-en une pour en choisir une autre.
   *[other] Vous pouvez réserver { $n } places au maximum ; décochez-en une pour en choisir une autre.
}

## The buyer's turn: seats held (app/src/onsale/held.rs)

held-title = Vos places sont réservées
# $time is a countdown, "4:59", shown in bold.
held-for = Réservation valable encore { $time }
# $amount: "90.00 EUR".
held-pay = Payer { $amount }
held-release = Libérer les places
held-ended = Votre réservation a expiré et les places ont été remises en vente. Faites un nouveau choix si vous le souhaitez.
held-one-minute = Plus qu'une minute : payez maintenant, sinon les places seront remises en vente.
# A held seat: "Stalls · row 4 · seat 12" ($section and $row are the venue's own names).
held-seat = { $section } · rang { $row } · place { $seat }
held-total = Total

## The end: sold out, or the order confirmed (app/src/onsale/done.rs)

done-sold-out-title = Complet
done-sold-out = Toutes les places de cet événement ont été vendues : la salle d'attente est fermée.
done-title = Vous y serez !
# $order is the order's number, shown in bold.
done-order-number = Numéro de commande : { $order }
done-keep = Conservez ce numéro de commande ; vos billets sont en route.
done-back = Retour aux événements

## Moving a place to another device (app/src/onsale/moving.rs)

# A page without JavaScript opened with a move code: the form that claims the place.
moving-claim-coming = Votre place dans la file est en cours de transfert depuis votre autre appareil.
# The button that claims a place moved from another device (the no-JavaScript form and the
# "Have a code from another device?" form).
moving-move-mine-here = Transférer ma place ici
# Read by screen readers: the box that asks whether to take a place moving here over this page's own.
moving-choice-label = Une place à transférer vers cet appareil
moving-choice-move = Transférer cette place ici
moving-choice-keep = Garder la place de cet appareil
# The button that asks for a one-time code moving this page's place to another device.
moving-continue-elsewhere = Continuer sur un autre appareil
moving-code-heading = Votre code pour l'autre appareil
# Also quoted inside move-explained.
moving-have-code = Vous avez un code d'un autre appareil ?
# The label of the field where the buyer types the code.
moving-code-label = Le code affiché sur votre autre appareil

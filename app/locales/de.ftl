# Anteroom's buyer pages, in German (Sie-form). Source: en.ftl.
# Ids are grouped by page; a `$n` is a whole number, written and made plural the
# language's way. Operator pages and the JSON API's messages are not here: they stay English.
# Note: $wait and $countdown are only used where their case does not matter
# ("Bitte warten Sie { $wait } …", "Noch { $countdown } …"), never after "in".

## Numbers of time and money (app/src/words.rs)

duration-seconds = { $n ->
    [one] eine Sekunde
   *[other] { $n } Sekunden
}
duration-minutes = { $n ->
    [one] eine Minute
   *[other] { $n } Minuten
}
duration-hours = { $n ->
    [one] 1 Stunde
   *[other] { $n } Stunden
}
# "1 Stunde und 5 Minuten": $hours is duration-hours.
duration-hours-minutes = { $hours } und { $m ->
    [one] { $m } Minute
   *[other] { $m } Minuten
}
# "etwa 3 Minuten": $duration is one of the durations above.
wait-about = etwa { $duration }
# "etwa 40 Sekunden bis 2 Minuten": two durations.
wait-range = etwa { $low } bis { $high }
# Both ends in seconds (more than one): "etwa 20 bis 40 Sekunden".
wait-range-seconds = etwa { $low } bis { $high } Sekunden
# Both ends in minutes (more than one): "etwa 3 bis 4 Minuten".
wait-range-minutes = etwa { $low } bis { $high } Minuten
wait-under-a-minute = weniger als eine Minute
countdown-days = { $days ->
    [one] 1 Tag
   *[other] { $days } Tage
} { $hours } Std.

weekday = { $n ->
    [1] Montag
    [2] Dienstag
    [3] Mittwoch
    [4] Donnerstag
    [5] Freitag
    [6] Samstag
   *[7] Sonntag
}
month = { $n ->
    [1] Januar
    [2] Februar
    [3] März
    [4] April
    [5] Mai
    [6] Juni
    [7] Juli
    [8] August
    [9] September
    [10] Oktober
    [11] November
   *[12] Dezember
}
# "Dienstag, 1. Dezember, 19:00": $weekday and $month are the names above, $time is 19:00.
day-and-time = { $weekday }, { $day }. { $month }, { $time }
day-and-time-with-year = { $weekday }, { $day }. { $month } { $year }, { $time }
# "19:00 Uhr (Ortszeit Berlin)"; $zone is zone-time below, or UTC.
time-in-zone = { $time } Uhr ({ $zone })
# A zone's name by its city: "Ortszeit Berlin".
zone-time = Ortszeit { $city }

## The outlook

outlook-likely = Wenn Sie an der Reihe sind, sind voraussichtlich noch Plätze frei.
outlook-uncertain = Ob noch Plätze frei sind, wenn Sie an der Reihe sind, ist offen: Das hängt davon ab, ob reservierte Plätze wieder freigegeben werden.
outlook-unlikely = Wenn Sie an der Reihe sind, sind voraussichtlich keine Plätze mehr frei – es sei denn, viele reservierte Plätze werden wieder freigegeben.

## Moving a place to another device

needs-device = Bei diesem Verkauf ist jeder Platz in der Warteschlange an das Gerät gebunden, mit dem er eingenommen wurde. Dafür sind JavaScript und ein Browser nötig, der einen Schlüssel erzeugen kann (WebCrypto). Dieser Browser kann das nicht und kann hier daher keinen Platz einnehmen. Öffnen Sie diese Seite in einem aktuellen Browser mit aktiviertem JavaScript.
move-explained = Scannen Sie diesen Code mit Ihrem anderen Gerät, oder öffnen Sie diesen Verkauf dort und geben Sie den Code unter „{ moving-have-code }“ ein. Ihr Platz wird dann einmalig mit seiner Position dorthin übertragen; diese Seite hat danach keinen Platz mehr.
claim-refused = Dieser Code wurde bereits verwendet, ist abgelaufen oder unbekannt. Es wurde daher kein Platz hierher übertragen. Der eigene Platz dieser Seite in der Warteschlange bleibt erhalten.
claimed = Ihr Platz wurde mit seiner Position von Ihrem anderen Gerät hierher übertragen.
moving-place-waiting = Ihr anderes Gerät ist auf Platz { $n } der Warteschlange.
moving-place-in-line = Ihr anderes Gerät hat einen Platz in der Warteschlange.
moving-place-admitted = Ihr anderes Gerät wurde bereits eingelassen.
moving-place-in-draw = Ihr anderes Gerät nimmt an der Auslosung teil.
own-place-given-up = Dieses Gerät ist auf Platz { $n } der Warteschlange. Wenn Sie den anderen Platz hierher übertragen, geben Sie diesen auf.
own-ticket-given-up = Dieses Gerät nimmt an der Auslosung teil. Wenn Sie den anderen Platz hierher übertragen, verfällt sein Los.
# "Einmalig gültig bis 19:14 Uhr (Ortszeit Berlin)."
move-valid-until = Einmalig gültig bis { $time }.
# $time: "19:04", $zone: "Ortszeit Berlin".
place-moved = Ihr Platz wurde um { $time } Uhr ({ $zone }) auf ein anderes Gerät übertragen. Fahren Sie dort fort; diese Seite hat keinen Platz mehr.
seats-coming = Sie sind an der Reihe: Ihr Saalplan wird geladen.
unreadable = Diese Seite konnte die Antwort unseres Servers nicht lesen. Laden Sie die Seite neu, um es erneut zu versuchen.

## What a form posted without JavaScript comes back to ($wait: "etwa 12 Sekunden")

note-released = Freigegeben. Die Plätze sind wieder für andere verfügbar.
note-seat-taken = Jemand hat gerade einen der von Ihnen gewählten Plätze gebucht, daher wurde nichts reserviert. Der Saalplan zeigt jetzt die noch freien Plätze; bitte wählen Sie erneut.
note-not-together = In diesem Bereich sind nicht mehr so viele zusammenhängende Plätze frei, daher wurde nichts reserviert. Wählen Sie weniger Plätze oder einen anderen Bereich.
note-no-seats = Sie haben keinen Platz ausgewählt. Markieren Sie die gewünschten Plätze, oder lassen Sie uns die besten für Sie finden.
note-too-many-seats = So viele Plätze darf eine Person bei diesem Verkauf nicht reservieren, daher wurde nichts reserviert. Bitte wählen Sie weniger Plätze.
note-bad-form = Wir konnten dieses Formular nicht lesen, daher wurde nichts geändert. Hier ist die Seite noch einmal; bitte versuchen Sie es erneut.
note-admission-ended = Ihre Zeit für die Platzwahl ist abgelaufen. Sie stehen daher wieder in der Warteschlange.
note-not-your-turn = Sie sind noch nicht mit der Platzwahl an der Reihe. Ihr Platz in der Warteschlange bleibt erhalten; diese Seite lässt Sie ein, sobald Sie an der Reihe sind.
note-claim-conflict = Dieser Platz kann nicht in diesen Browser übertragen werden: Der Code stammt von diesem Browser selbst, dieser Browser wurde bereits eingelassen, oder sein Platz wurde schon einmal übertragen. Es wurde nichts geändert.
note-admission-missing = Ihr Browser hat das Formular ohne Ihre Einlassberechtigung gesendet, daher wurde nichts reserviert. Hier ist der Saalplan noch einmal; bitte versuchen Sie es erneut.
note-no-session = Ihr Browser hat das Formular ohne unser Sitzungs-Cookie gesendet. Wir konnten Sie daher nicht erkennen und haben nichts geändert. Erlauben Sie Cookies für diese Website und versuchen Sie es erneut.
note-stale-form = Dieses Formular stammt von einem früheren Besuch dieser Seite, daher wurde nichts geändert. Hier ist die Seite noch einmal, auf dem neuesten Stand; bitte versuchen Sie es erneut.
note-rate-limited = Sie haben das in der letzten Minute zu oft versucht, daher wurde nichts geändert. Bitte warten Sie { $wait } und versuchen Sie es dann erneut.
note-busy = Anteroom ist gerade voll ausgelastet, daher wurde nichts geändert. Bitte warten Sie { $wait } und versuchen Sie es dann erneut.
note-unavailable = Ein Teil von Anteroom antwortet gerade nicht, daher wurde nichts geändert. Bitte warten Sie { $wait } und versuchen Sie es dann erneut.
note-declined = Die Zahlung wurde abgelehnt. Ihre Plätze sind weiterhin reserviert; Sie können es erneut versuchen.
note-pay-not-done = Ihre Zahlung ist noch nicht abgeschlossen. Ihre Plätze bleiben reserviert und werden nie doppelt berechnet. Bitte warten Sie { $wait } und versuchen Sie es dann erneut.
note-hold-ended = Ihre Reservierung war abgelaufen, bevor sie bezahlt wurde. Es wurde nichts berechnet, und die Plätze sind wieder im Verkauf. Wählen Sie gern erneut.
note-already-paid = Diese Plätze sind bereits bezahlt und können daher nicht freigegeben werden.
note-no-hold = Wir haben keine solche Reservierung von Ihnen gefunden, daher wurde nichts geändert. Hier sehen Sie Ihren aktuellen Stand.
note-not-open = Der Verkauf hat noch nicht begonnen, daher wurde nichts geändert. Diese Seite zählt bis zum Start herunter.
note-failed = Bei uns ist etwas schiefgelaufen, daher hat das nicht geklappt. Bitte versuchen Sie es erneut.

## What went wrong, by the API's error code

error-network = Wir können Anteroom nicht erreichen. Bitte prüfen Sie Ihre Internetverbindung; wir versuchen es weiter.
error-rate-limited = Aus Ihrem Netzwerk kamen in der letzten Minute zu viele Versuche, daher wurde nichts geändert. Bitte warten Sie einen Moment und versuchen Sie es dann erneut.
error-unavailable = Ein Teil von Anteroom antwortet gerade nicht, daher wurde nichts geändert. Bitte versuchen Sie es in ein paar Sekunden erneut.
error-seat-unavailable = Jemand hat gerade einen der von Ihnen gewählten Plätze gebucht, daher wurde nichts reserviert. Bitte wählen Sie erneut.
error-not-admitted = Sie sind nicht mit der Platzwahl an der Reihe, oder Ihre Zeit dafür ist abgelaufen. Ihr Platz in der Warteschlange bleibt erhalten.
error-not-in-queue = Diese Seite hat keinen Platz mehr in der Warteschlange. Laden Sie die Seite neu, um sich neu anzustellen.
error-not-found = Das konnten wir nicht finden. Laden Sie die Seite neu, um Ihren aktuellen Stand zu sehen.
error-not-open = Der Verkauf hat noch nicht begonnen. Diese Seite zählt bis zum Start herunter.
error-conflict = Das kollidierte mit einer Änderung von gerade eben, daher wurde nichts geändert. Laden Sie die Seite neu und versuchen Sie es erneut.
error-unauthorized = Ihr Browser hat unser Sitzungs-Cookie nicht gesendet. Erlauben Sie Cookies für diese Website und laden Sie die Seite neu.
error-forbidden = Das ist für Ihr Konto bei diesem Verkauf nicht erlaubt.
error-bad-request = Wir konnten diese Anfrage nicht lesen, daher wurde nichts geändert. Bitte versuchen Sie es erneut.
error-internal = Bei uns ist etwas schiefgelaufen. Bitte versuchen Sie es erneut.


## The event's page around its stages (app/src/onsale/mod.rs)

page-finding-place = Ihr Platz in der Warteschlange wird ermittelt …
page-sign-in-to-join = Melden Sie sich an, um sich anzustellen
page-not-for-your-account = Dieser Verkauf ist für Ihr Konto nicht freigegeben
page-sign-in = Anmelden
page-all-events = Alle Veranstaltungen ansehen
# The sign-in's own pages, when it does not go through (each with a way back).
signin-not-set-up-title = Die Anmeldung ist hier nicht eingerichtet
signin-not-set-up = Die Seite dieses Verkaufs hat keine Anmeldung eingerichtet, daher können Sie sich hier nicht anmelden.
signin-not-matched-title = Diese Anmeldung wurde nicht hier begonnen
signin-not-matched = Die Anmeldung passt zu keiner, die dieser Browser begonnen hat (oder sie hat länger als 10 Minuten gedauert). Beginnen Sie sie erneut.
signin-unavailable-title = Die Anmeldung ist gerade nicht verfügbar
signin-too-many-title = Zu viele Anmeldungen aus Ihrem Netzwerk
signin-failed-title = Die Anmeldung hat nicht geklappt
signin-unavailable = Der Anmeldedienst antwortet gerade nicht. Versuchen Sie es gleich noch einmal.
signin-failed = Die Anmeldung konnte nicht abgeschlossen werden, Sie sind also nicht angemeldet. Versuchen Sie es erneut.
signin-back = Zurück
# The page an instance at capacity answers instead of a waiting room (it comes back by itself).
busy-title = Einen Moment
busy-place-kept = Anteroom ist gerade voll ausgelastet; Ihr Platz in der Warteschlange bleibt erhalten.
page-could-not-open = Wir konnten diesen Verkauf nicht öffnen
page-try-again = Erneut versuchen
page-tries-again-in = Diese Seite versucht es in { $n ->
    [one] einer Sekunde
   *[other] { $n } Sekunden
} automatisch erneut.

## What the page's live region says to a screen reader when the stage changes

say-not-open = Der Verkauf hat noch nicht begonnen.
# $ticket: the buyer's ticket in the draw, a code.
say-pre-queue = Sie sind in der Vorab-Warteschlange, mit der Losnummer { $ticket }. Ihr Platz wird ausgelost.
say-paused = Sie sind in der Warteschlange. Der Verkauf ist pausiert.
# $wait: "etwa 5 Minuten", "weniger als eine Minute".
say-waiting = Sie sind in der Warteschlange. Noch { $wait } Wartezeit.
say-sold-out = Ausverkauft: Alle Plätze sind verkauft.
say-moved = Ihr Platz wurde auf ein anderes Gerät übertragen. Fahren Sie dort fort.
say-choosing = Sie sind an der Reihe: Wählen Sie Ihre Plätze.
say-holding = Ihre Plätze sind reserviert. Bezahlen Sie, bevor die Zeit abläuft.
say-confirmed = Geschafft. Ihre Plätze sind gebucht.

## Around every page, and the list of events (app/src/pages.rs)

# The name of the language switcher, for screen readers.
languages = Sprache
not-found = Nicht gefunden
not-found-here = Diese Seite gibt es nicht.
not-found-events = Zu den Veranstaltungen im Verkauf.
events-title = Veranstaltungen · Anteroom
events-heading = Veranstaltungen im Verkauf
events-show-details = Details zum Warteraum anzeigen
events-hide-details = Details zum Warteraum ausblenden
events-loading = Veranstaltungen werden geladen …
events-none = Derzeit ist noch nichts im Verkauf.
events-no-waiting = Im Verkauf: keine Wartezeit
events-paused = Warteraum pausiert
events-open = Warteraum geöffnet
# $opens: "Dienstag, 1. Dezember 2026, 19:00 Uhr (Ortszeit Berlin)".
events-opens = Verkaufsstart: { $opens }
events-opens-with-pre-queue = Verkaufsstart: { $opens }; Vorab-Warteschlange ab { $prequeue } (alle darin haben die gleiche Chance)
events-admitted-per-second = Einlass pro Sekunde
events-hold-lasts = Reservierungsdauer
events-minutes = { $n } Min.
events-seats-per-buyer = Plätze pro Person

## Before the line: the countdowns and the pre-queue (app/src/onsale/opening.rs)

opening-not-yet = Der Verkauf hat noch nicht begonnen
# $time: when the sale opens, e.g. "Dienstag, 1. Dezember, 19:00 Uhr (Ortszeit Berlin)".
opening-sale-at = Verkaufsstart: { $time }
# $time: when the pre-queue opens; $countdown: "2:05", "1:02:05" or "2 Tage 3 Std.".
opening-prequeue-at = Noch { $countdown } bis zur Öffnung der Vorab-Warteschlange: { $time }.
# $prequeue: when the pre-queue opens; $sale: when the sale opens (and the draw is made).
opening-prequeue-explained = Alle, die sich von { $prequeue } bis { $sale } in die Vorab-Warteschlange einreihen, haben die gleiche Chance: Zum Verkaufsstart bringt eine Auslosung sie alle in zufälliger Reihenfolge in die Warteschlange – vor allen, die später kommen. Wer zuerst da ist, hat keinen Vorteil. Sie müssen sich also nicht beeilen: Kommen Sie einfach irgendwann bis { $sale }.
# $countdown: "2:05", "1:02:05" or "2 Tage 3 Std.".
opening-sale-in = Noch { $countdown } bis zum Verkaufsstart. Ab dann gilt: Wer zuerst kommt, ist zuerst dran.
opening-keep-open = Lassen Sie diese Seite geöffnet: Sie reiht Sie automatisch ein, sobald es so weit ist.
opening-in-prequeue = Sie sind in der Vorab-Warteschlange
# $ticket: the buyer's ticket in the draw, a random code.
opening-your-ticket = Ihre Losnummer: { $ticket }
# $time: when the sale opens; $countdown: "2:05", "1:02:05" or "2 Tage 3 Std.".
opening-draw-at = Noch { $countdown } bis zur Auslosung: { $time }.
opening-draw-now = Die Auslosung läuft: Ihr Platz steht gleich fest.
# $time: when the sale opens (and the draw is made).
opening-draw-explained = Alle, die bis { $time } dabei sind, haben die gleiche Chance: Ob Sie früh oder in letzter Sekunde kommen, macht keinen Unterschied. Zum Verkaufsstart bringt eine Auslosung alle Lose in eine zufällige Reihenfolge. Das ist die Reihenfolge der Warteschlange – vor allen, die später kommen.
opening-ticket-kept = Lassen Sie diese Seite geöffnet oder kommen Sie vor der Auslosung zurück: Ihr Los bleibt Ihnen erhalten, in jedem Tab. Es ist zufällig und verrät nichts über Sie; nach der Auslosung kann jeder nachprüfen, auf welchem Platz jedes Los gelandet ist.

## The waiting room (app/src/onsale/waiting.rs)

waiting-in-room = Sie sind im Warteraum
# $place: waiting-position or waiting-position-about, shown in bold.
waiting-place = Ihr Platz in der Warteschlange: { $place }
# The buyer's exact place in line: "Nr. 14.812".
waiting-position = Nr. { $n }
# The buyer's place in line when it is an estimate: "etwa Nr. 14.812".
waiting-position-about = etwa Nr. { $n }
waiting-paused = Der Verkauf ist kurz pausiert. Ihr Platz bleibt erhalten; niemand kann Sie überholen.
# $wait: "etwa 3 bis 4 Minuten", shown in bold.
waiting-turn-in = Voraussichtliche Wartezeit: { $wait }.
waiting-progress = Ihr Fortschritt seit dem Anstellen
# How often the page refreshes itself, in seconds.
waiting-refresh-every = { $n ->
    [60] jede Minute
    [one] jede Sekunde
   *[other] alle { $n } Sekunden
}
# $every: waiting-refresh-every ("alle 3 Sekunden").
waiting-keep-open = Lassen Sie diese Seite geöffnet: Sie aktualisiert sich selbst ({ $every }) und lässt Sie ein, sobald Sie an der Reihe sind. Neu laden oder weitere Tabs öffnen ändert nichts an Ihrem Platz.
waiting-refreshes = Diese Seite aktualisiert sich selbst – seltener, solange Sie noch länger warten müssen.
# $ticket: the buyer's ticket in the draw (a code); $place: the place the draw gave it ("14.812").
waiting-drawn-place = Ihr Platz stammt aus der Auslosung: Los { $ticket } wurde auf Platz { $place } gezogen.
# $address: the web address where the draw is published (a link); $command: a command line to check it.
waiting-check-draw = Prüfen Sie es selbst: Die Auslosung ist unter { $address } veröffentlicht (das vor Öffnung der Vorab-Warteschlange hinterlegte Geheimnis, der Beacon, der Seed und alle Lose in ihrer Reihenfolge). Jeder kann sie nachrechnen oder { $command } ausführen.
# Stands for the sale's web address in a command line the buyer may run.
waiting-this-site = <diese Website>
waiting-recovered = Der Warteraum hat sich gerade von einem Ausfall seines Speichers erholt. Ihr Platz bleibt in der Reihenfolge Ihrer Ankunft erhalten; Ihre Position kann sich vorübergehend verschlechtert haben, während beim Ausfall verlorene Einlässe nachgeholt werden.
waiting-turn-passed = Ihre Zeit ist abgelaufen, ohne dass Sie Plätze gewählt haben. Sie stehen daher wieder in der Warteschlange.

## While the browser joins the line (app/src/onsale/arriving.rs)

arriving-getting-place = Ihr Platz wird ermittelt …
arriving-proof-work = Bei diesem Verkauf muss jeder Browser einige Sekunden Rechenarbeit leisten, bevor er sich anstellt – so kann niemand massenhaft Plätze belegen. Ihr Browser erledigt das gerade. Lassen Sie diese Seite geöffnet; es geht automatisch weiter.
arriving-proof-needs-script = Dafür ist JavaScript nötig: Aktivieren Sie es für diese Website und laden Sie die Seite neu.
arriving-joining = Einen Moment: Ihr Browser reiht sich in die Warteschlange ein.
arriving-reloads = Diese Seite lädt sich gleich mit Ihrem Platz neu.

## Pages without JavaScript (app/src/onsale/noscript.rs)

noscript-countdown-refresh = Diese Seite aktualisiert sich selbst; der Countdown stimmt bei jeder Aktualisierung.

## The buyer's turn: the seat map (app/src/onsale/seats.rs)

seats-your-turn = Geschafft: Sie sind an der Reihe.
seats-title = Wählen Sie Ihre Plätze
# $n: how many seats one buyer may hold at this sale.
seats-intro = { $n ->
    [one] Bis zu 1 Platz. Öffnen Sie einen Bereich und markieren Sie einen Platz, um ihn auszuwählen – oder lassen Sie uns den besten Platz für Sie finden.
   *[other] Bis zu { $n } Plätze. Öffnen Sie einen Bereich und markieren Sie Plätze, um sie auszuwählen – oder lassen Sie uns die besten zusammenhängenden Plätze für Sie finden.
}
# The label of the list of the hall's sections (read by screen readers).
seats-sections = Bereiche
# The map's legend: what a seat's colour means.
seats-available = Frei
seats-chosen = Ihre Auswahl
seats-held = Reserviert
seats-sold = Verkauft
# The buyer picks how large the seats are drawn.
seats-size = Platzgröße
seats-size-small = Klein
seats-size-medium = Mittel
seats-size-large = Groß
# Marks where the stage is, above the seats.
seats-stage = Bühne
# A section's tile in the overview: its seats still free.
seats-left = { $n ->
    [0] Derzeit keine frei
    [one] 1 Platz frei
   *[other] { $n } Plätze frei
}
# A section's prices, cheapest to dearest: "25,00 € bis 45,00 €".
seats-price-range = { $low } bis { $high }
# A seat's name: "Parkett, Reihe 4, Platz 12" ($section and $row are the venue's own names).
seats-seat = { $section }, Reihe { $row }, Platz { $seat }
# A seat the map no longer shows, by its code.
seats-seat-id = Platz { $id }
# Between seats' names in a list: "Parkett, Reihe 4, Platz 12; Parkett, Reihe 4, Platz 13".
seats-list-separator = { "; " }
# A row of seats, as screen readers name it: "Parkett, Reihe 4".
seats-row = { $section }, Reihe { $row }
# A seat's checkbox, as screen readers read it: "Parkett, Reihe 4, Platz 12, 45,00 €, frei".
seats-seat-described = { $section }, Reihe { $row }, Platz { $seat }, { $price }, { $status ->
    [available] frei
    [held] reserviert
   *[sold] verkauft
}
# $n: how many seats are ticked.
seats-hold-button = { $n ->
    [0] Markierte Plätze reservieren
    [one] 1 Platz reservieren
   *[other] { $n } Plätze reservieren
}
seats-best = Oder: beste verfügbare Plätze
seats-best-section = Bereich
# How many seats to find together.
seats-best-quantity = Anzahl Plätze
seats-find = Plätze für mich finden
# $seats: the seats' names, as a list ("Parkett, Reihe 4, Platz 12; Parkett, Reihe 4, Platz 13").
seats-taken = Gerade von jemand anderem gebucht: { $seats }. Der Saalplan zeigt jetzt die noch freien Plätze; bitte wählen Sie erneut.
seats-not-together = In diesem Bereich sind nicht mehr so viele zusammenhängende Plätze frei. Wählen Sie weniger Plätze oder einen anderen Bereich.
# $n: how many seats one buyer may hold at this sale.
seats-limit-reached = { $n ->
    [one] Sie können höchstens 1 Platz reservieren. Entfernen Sie eine Markierung, um einen anderen zu wählen.
   *[other] Sie können höchstens { $n } Plätze reservieren. Entfernen Sie eine Markierung, um einen anderen zu wählen.
}

## The buyer's turn: seats held (app/src/onsale/held.rs)

held-title = Ihre Plätze sind reserviert
# $time is a countdown, "4:59", shown in bold.
held-for = Noch { $time } reserviert
# $amount: "90,00 €".
held-pay = { $amount } bezahlen
held-release = Plätze freigeben
held-ended = Ihre Reservierung ist abgelaufen, und die Plätze sind wieder im Verkauf. Wählen Sie gern erneut.
held-one-minute = Noch eine Minute: Bezahlen Sie jetzt, sonst gehen die Plätze zurück in den Verkauf.
# A held seat: "Parkett · Reihe 4 · Platz 12" ($section and $row are the venue's own names).
held-seat = { $section } · Reihe { $row } · Platz { $seat }
held-total = Gesamt

## The end: sold out, or the order confirmed (app/src/onsale/done.rs)

done-sold-out-title = Ausverkauft
done-sold-out = Alle Plätze für diese Veranstaltung sind verkauft. Der Warteraum ist daher geschlossen.
done-title = Sie sind dabei!
# $order is the order's number, shown in bold.
done-order-number = Bestellnummer { $order }
done-keep = Bewahren Sie die Bestellnummer auf; Ihre Tickets sind unterwegs.
done-back = Zurück zu den Veranstaltungen

## Moving a place to another device (app/src/onsale/moving.rs)

# A page without JavaScript opened with a move code: the form that claims the place.
moving-claim-coming = Ihr Platz in der Warteschlange wird von Ihrem anderen Gerät hierher übertragen.
# The button that claims a place moved from another device (the no-JavaScript form and the
# "Have a code from another device?" form).
moving-move-mine-here = Meinen Platz hierher übertragen
# Read by screen readers: the box that asks whether to take a place moving here over this page's own.
moving-choice-label = Ein Platz wird hierher übertragen
moving-choice-move = Den anderen Platz hierher übertragen
moving-choice-keep = Den Platz dieses Geräts behalten
# The button that asks for a one-time code moving this page's place to another device.
moving-continue-elsewhere = Auf einem anderen Gerät fortfahren
moving-code-heading = Ihr Code für das andere Gerät
# Also quoted inside move-explained.
moving-have-code = Haben Sie einen Code von einem anderen Gerät?
# The label of the field where the buyer types the code.
moving-code-label = Der Code, den Ihr anderes Gerät anzeigt
